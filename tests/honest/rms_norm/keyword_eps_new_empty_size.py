# eps passed by keyword, the kernel's tuple rebuilt; fake outputs from x.size()
@torch.library.custom_op("course::rms_norm", mutates_args=())
def rms_norm(x: torch.Tensor, eps: float) -> tuple[torch.Tensor, torch.Tensor]:
    return tuple(torch.ops.course_kernels.rms_norm(x, eps=eps))


@rms_norm.register_fake
def _(x, eps):
    out = x.new_empty(x.size())
    return out, out.new_empty(out.size()[:-1])
