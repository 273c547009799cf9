# mistake: the fake kernel sizes rstd from x's data (a Python float of its last dim's length, read with .item()): fake tensors have no data
# feedback: fake tensors have none
# code: fake-kernel-reads-data
# fails: fake
# score: 1/2
@torch.library.custom_op("course::rms_norm", mutates_args=())
def rms_norm(x: torch.Tensor, eps: float) -> tuple[torch.Tensor, torch.Tensor]:
    return torch.ops.course_kernels.rms_norm(x, eps)


@rms_norm.register_fake
def _(x, eps):
    rows = int(x.new_ones(x.shape[:-1]).sum().item())
    return x.new_empty(x.shape), x.new_empty(rows).view(x.shape[:-1])
