# style: a fake kernel registered on a second operator by torch.library.register_fake, saved tensors named
@torch.library.custom_op("course::rms_norm_backward_kernel", mutates_args=())
def backward_kernel(grad_out: torch.Tensor, x: torch.Tensor, rstd: torch.Tensor) -> torch.Tensor:
    return torch.ops.course_kernels.rms_norm_backward(grad_out, x, rstd)


torch.library.register_fake("course::rms_norm_backward_kernel")(lambda g, x, rstd: torch.empty_like(x).contiguous())


def rms_norm_setup_context(ctx, inputs, output):
    ctx.save_for_backward(inputs[0], output[1])
    ctx.mark_non_differentiable(output[1])


def rms_norm_backward(ctx, grad_out, grad_rstd):
    saved_x, saved_rstd = ctx.saved_tensors
    return backward_kernel(grad_out, saved_x, saved_rstd), None


rms_norm.register_autograd(rms_norm_backward, setup_context=rms_norm_setup_context)
