# style: torch.empty with explicit dtype and device as the fake kernel, the kernel's outputs unpacked, a print
@torch.library.custom_op("course::rms_norm", mutates_args=())
def rms_norm(x: torch.Tensor, eps: float) -> tuple[torch.Tensor, torch.Tensor]:
    out, rstd = torch.ops.course_kernels.rms_norm(x, eps)
    return out, rstd


@rms_norm.register_fake
def _(x, eps):
    rows = x.shape[:-1]
    return (torch.empty(x.shape, dtype=x.dtype, device=x.device),
            torch.empty(rows, dtype=x.dtype, device=x.device))


print(rms_norm(torch.ones(2, 3), 1e-6))
