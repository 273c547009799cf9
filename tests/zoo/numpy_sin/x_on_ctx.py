# mistake: setup_context keeps x as a plain ctx attribute (ctx.x = x) instead of ctx.save_for_backward(x)
# feedback: save_for_backward
# code: not-saved-for-backward
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
    (x,) = inputs
    ctx.x = x


def numpy_sin_backward(ctx, grad_output):
    return grad_output * torch.cos(ctx.x)


numpy_sin.register_autograd(numpy_sin_backward, setup_context=numpy_sin_setup_context)
