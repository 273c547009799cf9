# mistake: the fake kernel copies x's layout (torch.empty_like), but the kernel returns contiguous tensors
# feedback: contiguous whatever x's layout
# code: fake-kernel-strides
# fails: fake
# score: 1/2
@torch.library.custom_op("course::rms_norm", mutates_args=())
def rms_norm(x: torch.Tensor, eps: float) -> tuple[torch.Tensor, torch.Tensor]:
    return torch.ops.course_kernels.rms_norm(x, eps)


@rms_norm.register_fake
def _(x, eps):
    return torch.empty_like(x), x.new_empty(x.shape[:-1])
