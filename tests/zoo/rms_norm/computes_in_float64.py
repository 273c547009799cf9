# mistake: the operator calls the kernel on x.double() (to accumulate in float64) and returns float64 for a float32 x
# feedback: has dtype torch.float64
# code: wrong-dtype
# fails: values
# score: 1/2
@torch.library.custom_op("course::rms_norm", mutates_args=())
def rms_norm(x: torch.Tensor, eps: float) -> tuple[torch.Tensor, torch.Tensor]:
    return torch.ops.course_kernels.rms_norm(x.double(), eps)       # accumulate in float64


@rms_norm.register_fake
def _(x, eps):
    return x.new_empty(x.shape), x.new_empty(x.shape[:-1])
