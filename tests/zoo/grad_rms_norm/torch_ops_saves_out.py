# mistake: a backward in torch operations saves out in setup_context and uses it where the formula needs x
# feedback: x, the operator's input
# code: wrong-derivative
# fails: gradient
# score: 3/4
def rms_norm_setup_context(ctx, inputs, output):
    out, rstd = output
    ctx.save_for_backward(out, rstd)
    ctx.mark_non_differentiable(rstd)


def rms_norm_backward(ctx, grad_out, grad_rstd):
    x, rstd = ctx.saved_tensors   # out, saved in its place
    r = rstd.unsqueeze(-1)
    xhat = x * r
    proj = (grad_out * xhat).mean(-1, keepdim=True)
    return r * (grad_out - xhat * proj), None


rms_norm.register_autograd(rms_norm_backward, setup_context=rms_norm_setup_context)
