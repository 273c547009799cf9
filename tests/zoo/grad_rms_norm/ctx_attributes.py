# mistake: x and rstd kept as ctx attributes, so an in-place change of x after the forward goes unnoticed
# feedback: ctx.save_for_backward
# code: not-saved-for-backward
# fails: saved
# score: 3/4
@torch.library.custom_op("course::rms_norm_grad", mutates_args=())
def rms_norm_grad(grad_out: torch.Tensor, x: torch.Tensor, rstd: torch.Tensor) -> torch.Tensor:
    return torch.ops.course_kernels.rms_norm_backward(grad_out, x, rstd)


@rms_norm_grad.register_fake
def _(grad_out, x, rstd):
    return x.new_empty(x.shape)


def rms_norm_setup_context(ctx, inputs, output):
    ctx.x = inputs[0]
    ctx.rstd = output[1]
    ctx.mark_non_differentiable(output[1])


def rms_norm_backward(ctx, grad_out, grad_rstd):
    return rms_norm_grad(grad_out, ctx.x, ctx.rstd), None


rms_norm.register_autograd(rms_norm_backward, setup_context=rms_norm_setup_context)
