# mistake: the operator passes 1e-6, the demonstrations' eps, to the kernel instead of its own eps argument
# feedback: rms_norm(x, 0.5)
# code: wrong-forward
# fails: values
# score: 1/2
@torch.library.custom_op("course::rms_norm", mutates_args=())
def rms_norm(x: torch.Tensor, eps: float) -> tuple[torch.Tensor, torch.Tensor]:
    return torch.ops.course_kernels.rms_norm(x, 1e-6)                 # as in the demonstrations


@rms_norm.register_fake
def _(x, eps):
    return x.new_empty(x.shape), x.new_empty(x.shape[:-1])
