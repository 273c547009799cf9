# mistake: backward returns torch.zeros(()) for eps (no gradient, it thinks) instead of None
# feedback: backward returned a gradient for eps
# code: gradient-for-eps
# fails: gradient
# score: 3/4
@torch.library.custom_op("course::rms_norm_grad", mutates_args=())
def rms_norm_grad(grad_out: torch.Tensor, x: torch.Tensor, rstd: torch.Tensor) -> torch.Tensor:
    return torch.ops.course_kernels.rms_norm_backward(grad_out, x, rstd)


@rms_norm_grad.register_fake
def _(grad_out, x, rstd):
    return x.new_empty(x.shape)


def rms_norm_setup_context(ctx, inputs, output):
    x, eps = inputs
    _, rstd = output
    ctx.save_for_backward(x, rstd)
    ctx.mark_non_differentiable(rstd)


def rms_norm_backward(ctx, grad_out, grad_rstd):
    x, rstd = ctx.saved_tensors
    return rms_norm_grad(grad_out, x, rstd), torch.zeros(())          # eps gets no gradient


rms_norm.register_autograd(rms_norm_backward, setup_context=rms_norm_setup_context)
