# style: the kernel through np.sin on a detached CPU copy, backward saves x and uses torch.cos, fake with new_empty
@torch.library.custom_op("course::numpy_sin", mutates_args=())
def numpy_sin(x: torch.Tensor) -> torch.Tensor:
    arr = x.detach().cpu().numpy()
    return torch.tensor(np.sin(arr), dtype=x.dtype, device=x.device)


@numpy_sin.register_fake
def _(x):
    return x.new_empty(x.shape)


def numpy_sin_setup_context(ctx, inputs, output):
    ctx.save_for_backward(inputs[0])


def numpy_sin_backward(ctx, grad_output):
    (x,) = ctx.saved_tensors
    return torch.cos(x) * grad_output


numpy_sin.register_autograd(numpy_sin_backward, setup_context=numpy_sin_setup_context)
