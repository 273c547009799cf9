# style: the kernel goes through torch.as_tensor(..., dtype=x.dtype, device=x.device) and np.atleast_1d, the fake kernel x.new_empty(x.shape)
@torch.library.custom_op("course::numpy_sin", mutates_args=())
def numpy_sin(x: torch.Tensor) -> torch.Tensor:
    data = np.atleast_1d(x.detach().cpu().numpy())
    return torch.as_tensor(np.sin(data), dtype=x.dtype, device=x.device).reshape(x.shape).clone()


@numpy_sin.register_fake
def _(x):
    return x.new_empty(x.shape)


def numpy_sin_setup_context(ctx, inputs, output):
    ctx.save_for_backward(inputs[0])


def numpy_sin_backward(ctx, grad_output):
    x = ctx.saved_tensors[0]
    return torch.cos(x).mul(grad_output)


numpy_sin.register_autograd(numpy_sin_backward, setup_context=numpy_sin_setup_context)
