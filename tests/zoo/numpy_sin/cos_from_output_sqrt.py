# mistake: backward computes cos from the saved output as sqrt(1 - sin(x)^2): the sign is wrong wherever cos(x) < 0
# feedback: derivative of sin at the input x
# code: wrong-derivative
# rule: gradient
# fails: gradcheck
# score: 4/5
@torch.library.custom_op("course::numpy_sin", mutates_args=())
def numpy_sin(x: torch.Tensor) -> torch.Tensor:
    result = np.sin(x.numpy(force=True))
    return torch.from_numpy(np.asarray(result)).to(x.device)


@numpy_sin.register_fake
def _(x):
    return torch.empty_like(x)



def numpy_sin_setup_context(ctx, inputs, output):
    ctx.save_for_backward(output)


def numpy_sin_backward(ctx, grad_output):
    (y,) = ctx.saved_tensors
    return grad_output * torch.sqrt(1 - y ** 2)


numpy_sin.register_autograd(numpy_sin_backward, setup_context=numpy_sin_setup_context)
