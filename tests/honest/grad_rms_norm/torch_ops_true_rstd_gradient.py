# style: the gradient in torch operations (no second operator), and rstd's true gradient instead of marking it
def rms_norm_setup_context(ctx, inputs, output):
    x, eps = inputs
    _, rstd = output
    ctx.save_for_backward(x, rstd)


def rms_norm_backward(ctx, grad_out, grad_rstd):
    x, rstd = ctx.saved_tensors
    r = rstd.unsqueeze(-1)
    n = x.shape[-1]
    grad_x = r * (grad_out - x * r * r * (grad_out * x).mean(-1, keepdim=True))
    grad_x = grad_x - grad_rstd.unsqueeze(-1) * r ** 3 * x / n
    return grad_x, None


rms_norm.register_autograd(rms_norm_backward, setup_context=rms_norm_setup_context)
