# mistake: the kernel turns NumPy's result into a Python list, and torch.tensor of a list is float32
# feedback: has dtype torch.float32 but should have torch.float64
# code: wrong-dtype
# rule: values
# fails: values
# score: 4/5
@torch.library.custom_op("course::numpy_sin", mutates_args=())
def numpy_sin(x: torch.Tensor) -> torch.Tensor:
    result = np.sin(x.numpy(force=True))
    return torch.tensor(result.tolist(), device=x.device)


@numpy_sin.register_fake
def _(x):
    return torch.empty_like(x)


def numpy_sin_setup_context(ctx, inputs, output):
    (x,) = inputs
    ctx.save_for_backward(x)


def numpy_sin_backward(ctx, grad_output):
    (x,) = ctx.saved_tensors
    return grad_output * torch.cos(x)


numpy_sin.register_autograd(numpy_sin_backward, setup_context=numpy_sin_setup_context)
