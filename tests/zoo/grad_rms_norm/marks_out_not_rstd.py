# mistake: setup_context marks out, not rstd, as non-differentiable: out has no gradient and rstd a silent zero
# feedback: does not require grad
# code: op-error
# fails: gradient rstd
# score: 2/4
# family: silent-aux-gradient
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
    ctx.mark_non_differentiable(output[0])


def rms_norm_backward(ctx, grad_out, grad_rstd):
    x, rstd = ctx.saved_tensors
    return rms_norm_grad(grad_out, x, rstd), None


rms_norm.register_autograd(rms_norm_backward, setup_context=rms_norm_setup_context)
