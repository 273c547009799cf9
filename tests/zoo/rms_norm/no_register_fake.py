# mistake: no fake kernel, so compile, export and opcheck cannot trace the operator
# feedback: rms_norm has no fake kernel
# code: no-fake-kernel
# fails: fake
# score: 1/2
@torch.library.custom_op("course::rms_norm", mutates_args=())
def rms_norm(x: torch.Tensor, eps: float) -> tuple[torch.Tensor, torch.Tensor]:
    return torch.ops.course_kernels.rms_norm(x, eps)
