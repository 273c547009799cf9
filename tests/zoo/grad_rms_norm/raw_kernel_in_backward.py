# mistake: backward calls the raw compiled kernel, which has no fake kernel: eager works, tracing fails
# feedback: calls the compiled kernel course_kernels.rms_norm_backward directly
# code: backward-not-traceable
# fails: opcheck
# score: 3/4
def rms_norm_setup_context(ctx, inputs, output):
    x, eps = inputs
    _, rstd = output
    ctx.save_for_backward(x, rstd)
    ctx.mark_non_differentiable(rstd)


def rms_norm_backward(ctx, grad_out, grad_rstd):
    x, rstd = ctx.saved_tensors
    return torch.ops.course_kernels.rms_norm_backward(grad_out, x, rstd), None


rms_norm.register_autograd(rms_norm_backward, setup_context=rms_norm_setup_context)
