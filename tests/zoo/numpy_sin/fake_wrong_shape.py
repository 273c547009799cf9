# mistake: the fake kernel returns a tensor of the wrong shape (it drops the last dimension)
# feedback: shape
# code: fake-kernel-mismatch
# rule: opcheck
# fails: opcheck
# score: 4/5
@torch.library.custom_op("course::numpy_sin", mutates_args=())
def numpy_sin(x: torch.Tensor) -> torch.Tensor:
    result = np.sin(x.numpy(force=True))
    return torch.from_numpy(np.asarray(result)).to(x.device)


@numpy_sin.register_fake
def _(x):
    return x.new_empty(x.shape[:-1])


def numpy_sin_setup_context(ctx, inputs, output):
    (x,) = inputs
    ctx.save_for_backward(x)


def numpy_sin_backward(ctx, grad_output):
    (x,) = ctx.saved_tensors
    return grad_output * torch.cos(x)


numpy_sin.register_autograd(numpy_sin_backward, setup_context=numpy_sin_setup_context)
