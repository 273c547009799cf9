# mistake: a backward in torch operations computes in float32 (.float()) and casts the gradient back
# feedback: off by float32's rounding
# code: float32-precision
# fails: gradient
# score: 3/4
def rms_norm_setup_context(ctx, inputs, output):
    x, eps = inputs
    _, rstd = output
    ctx.save_for_backward(x, rstd)
    ctx.mark_non_differentiable(rstd)


def rms_norm_backward(ctx, grad_out, grad_rstd):
    x, rstd = ctx.saved_tensors
    x, r = x.float(), rstd.unsqueeze(-1).float()   # float32 to save time
    xhat = x * r
    proj = (grad_out * xhat).mean(-1, keepdim=True)
    return (r * (grad_out - xhat * proj)).to(grad_out.dtype), None


rms_norm.register_autograd(rms_norm_backward, setup_context=rms_norm_setup_context)
