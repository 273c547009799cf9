# mistake: the fake kernel gives out x's strides (torch.empty_strided(x.shape, x.stride())), not the kernel's contiguous layout
# feedback: describes out with strides
# code: fake-kernel-strides
# fails: fake
# score: 1/2
@torch.library.custom_op("course::rms_norm", mutates_args=())
def rms_norm(x: torch.Tensor, eps: float) -> tuple[torch.Tensor, torch.Tensor]:
    return torch.ops.course_kernels.rms_norm(x, eps)


@rms_norm.register_fake
def _(x, eps):
    return torch.empty_strided(x.shape, x.stride(), dtype=x.dtype), x.new_empty(x.shape[:-1])
