# mistake: the operator returns only out, dropping rstd (the output the backward needs)
# feedback: it returns two tensors, (out, rstd)
# code: wrong-outputs
# fails: fake values
# score: 0/2
@torch.library.custom_op("course::rms_norm", mutates_args=())
def rms_norm(x: torch.Tensor, eps: float) -> torch.Tensor:
    return torch.ops.course_kernels.rms_norm(x, eps)[0]


@rms_norm.register_fake
def _(x, eps):
    return x.new_empty(x.shape)
