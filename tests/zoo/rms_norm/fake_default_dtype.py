# mistake: the fake kernel makes its outputs with torch.empty and no dtype: float32 whatever x's dtype
# feedback: describes out as shape
# code: fake-kernel-mismatch
# fails: fake
# score: 1/2
@torch.library.custom_op("course::rms_norm", mutates_args=())
def rms_norm(x: torch.Tensor, eps: float) -> tuple[torch.Tensor, torch.Tensor]:
    return torch.ops.course_kernels.rms_norm(x, eps)


@rms_norm.register_fake
def _(x, eps):
    return torch.empty(x.shape), torch.empty(x.shape[:-1])
