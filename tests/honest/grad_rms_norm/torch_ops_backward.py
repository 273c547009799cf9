# style: backward in torch operations only (no second operator), the projection written out
def rms_norm_setup_context(ctx, inputs, output):
    x, eps = inputs
    _, rstd = output
    ctx.save_for_backward(x, rstd)
    ctx.mark_non_differentiable(rstd)


def rms_norm_backward(ctx, grad_out, grad_rstd):
    x, rstd = ctx.saved_tensors
    r = rstd.unsqueeze(-1)
    xhat = x * r
    proj = (grad_out * xhat).mean(-1, keepdim=True)
    return r * (grad_out - xhat * proj), None


rms_norm.register_autograd(rms_norm_backward, setup_context=rms_norm_setup_context)
