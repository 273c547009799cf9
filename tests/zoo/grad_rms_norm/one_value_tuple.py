# mistake: backward returns a tuple of one value, (grad_x,), without the None for eps
# feedback: wrong number of values
# code: wrong-arity
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
    return (rms_norm_grad(grad_out, x, rstd),)


rms_norm.register_autograd(rms_norm_backward, setup_context=rms_norm_setup_context)
