# mistake: the fake kernel calls the compiled kernel to get outputs of the right metadata: right on real tensors, but it cannot run on the fake tensors compile, export and opcheck pass it
# feedback: cannot run on fake tensors
# code: fake-kernel-runs-kernel
# fails: fake
# score: 1/2
@torch.library.custom_op("course::rms_norm", mutates_args=())
def rms_norm(x: torch.Tensor, eps: float) -> tuple[torch.Tensor, torch.Tensor]:
    return torch.ops.course_kernels.rms_norm(x, eps)


@rms_norm.register_fake
def _(x, eps):
    return torch.ops.course_kernels.rms_norm(x, eps)
