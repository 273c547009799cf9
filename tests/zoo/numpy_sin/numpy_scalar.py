# mistake: torch.from_numpy on np.sin's result, which is a NumPy scalar (not an array) for a 0-d input
# feedback: 0-d
# code: numpy-scalar
# rule: values
# fails: values
# score: 4/5
@torch.library.custom_op("course::numpy_sin", mutates_args=())
def numpy_sin(x: torch.Tensor) -> torch.Tensor:
    return torch.from_numpy(np.sin(x.numpy(force=True))).to(x.device)


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
