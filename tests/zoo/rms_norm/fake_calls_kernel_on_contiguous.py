# mistake: the fake kernel hands the compiled kernel a contiguous copy of x: still the compiled kernel, which fake tensors cannot run
# feedback: cannot run on fake tensors
# code: fake-kernel-runs-kernel
# fails: fake
# score: 1/2
@torch.library.custom_op("course::rms_norm", mutates_args=())
def rms_norm(x: torch.Tensor, eps: float) -> tuple[torch.Tensor, torch.Tensor]:
    return torch.ops.course_kernels.rms_norm(x, eps)


@rms_norm.register_fake
def _(x, eps):
    out, rstd = torch.ops.course_kernels.rms_norm(x.contiguous(), eps)
    return out, rstd
