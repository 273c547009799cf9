# style: torch.as_tensor instead of from_numpy, new_empty as the fake kernel, cos(x) saved instead of x, a print
@torch.library.custom_op("course::numpy_sin", mutates_args=())
def numpy_sin(x: torch.Tensor) -> torch.Tensor:
    out = np.sin(x.detach().cpu().numpy())
    return torch.as_tensor(out, dtype=x.dtype).clone().to(x.device)


@numpy_sin.register_fake
def _(x):
    return x.new_empty(x.shape)


def numpy_sin_setup_context(ctx, inputs, output):
    (x,) = inputs
    ctx.save_for_backward(torch.cos(x))       # all backward needs


def numpy_sin_backward(ctx, grad_output):
    (cos_x,) = ctx.saved_tensors
    return cos_x * grad_output


numpy_sin.register_autograd(numpy_sin_backward, setup_context=numpy_sin_setup_context)
print("sin(1) =", numpy_sin(torch.tensor(1.0)))
