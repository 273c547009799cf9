# mistake: the fake kernel computes RMS normalisation with torch operations: it runs on fake tensors, but out keeps x's layout where the kernel returns contiguous tensors
# feedback: contiguous whatever x's layout
# code: fake-kernel-strides
# fails: fake
# score: 1/2
@torch.library.custom_op("course::rms_norm", mutates_args=())
def rms_norm(x: torch.Tensor, eps: float) -> tuple[torch.Tensor, torch.Tensor]:
    return torch.ops.course_kernels.rms_norm(x, eps)


@rms_norm.register_fake
def _(x, eps):
    rstd = torch.rsqrt((x * x).mean(-1) + eps)
    return x * rstd.unsqueeze(-1), rstd
