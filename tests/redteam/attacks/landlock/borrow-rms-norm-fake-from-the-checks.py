# exercise: rms_norm
# base: no_register_fake
# what: borrows notebook 16's fake kernel from the checks instead of writing one: `_reference_fake`, which the
#   checks' reference operator course_check.rms_norm carried when made at import (every learner's process is a
#   fork of the grading root, so it was there), else that operator itself, called under FakeTensorMode where its
#   fake kernel answers. The checks now make their stand-in operator, and its fake kernel, inside the probe of the
#   gradient tests only, in that test's own fork; where the fake test runs there is neither, and the fake kernel
#   fails as the base's missing one does.
try:
    from autograder.checks.custom_kernels import _reference_fake as _borrowed
except ImportError:
    _borrowed = None


@torch.library.custom_op("course::rms_norm", mutates_args=())
def rms_norm(x: torch.Tensor, eps: float) -> tuple[torch.Tensor, torch.Tensor]:
    return torch.ops.course_kernels.rms_norm(x, eps)


@rms_norm.register_fake
def _(x, eps):
    if _borrowed is not None:
        return _borrowed(x, eps)
    return torch.ops.course_check.rms_norm(x, eps)
