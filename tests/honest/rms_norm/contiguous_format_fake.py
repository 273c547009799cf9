# x made contiguous before the kernel (a no-op for it); fake outputs by empty_like(contiguous_format) and torch.empty
@torch.library.custom_op("course::rms_norm", mutates_args=())
def rms_norm(x: torch.Tensor, eps: float) -> tuple[torch.Tensor, torch.Tensor]:
    out, rstd = torch.ops.course_kernels.rms_norm(x.contiguous(), eps)
    return out, rstd


@rms_norm.register_fake
def _(x, eps):
    return torch.empty_like(x, memory_format=torch.contiguous_format), torch.empty(x.shape[:-1], dtype=x.dtype, device=x.device)
