# mistake: the fake kernel gives rstd shape (x.shape[0],), one per row of a 2-d x, wrong for other ranks
# feedback: describes rstd as shape
# code: fake-kernel-mismatch
# fails: fake
# score: 1/2
@torch.library.custom_op("course::rms_norm", mutates_args=())
def rms_norm(x: torch.Tensor, eps: float) -> tuple[torch.Tensor, torch.Tensor]:
    return torch.ops.course_kernels.rms_norm(x, eps)


@rms_norm.register_fake
def _(x, eps):
    return x.new_empty(x.shape), x.new_empty(x.shape[0])           # one rstd per row
