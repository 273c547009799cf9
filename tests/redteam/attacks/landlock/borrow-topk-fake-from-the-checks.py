# exercise: numpy_topk
# base: fake_indices_dtype
# what: notebook 11's top-k fake kernel borrowed from the checks: `_reference_topk_fake`, the stand-in the opcheck
#   test put in the learner's place, once a module-level function every learner's process could import (a fork of
#   the grading root). Else the answer's own fake, wrong as the base's (the indices in x's dtype). The stand-in
#   is made inside the probe now, in the opcheck test's fork only; where the fake test runs there is none.
import numpy as np

try:
    from autograder.checks.compile_export.topk import _reference_topk_fake as _borrowed
except ImportError:
    _borrowed = None


@torch.library.custom_op("course::numpy_topk", mutates_args=())
def numpy_topk(x: torch.Tensor, k: int) -> tuple[torch.Tensor, torch.Tensor]:
    data = x.numpy(force=True)
    order = np.ascontiguousarray(np.argsort(-data, axis=-1, kind="stable")[..., :k])
    values = np.take_along_axis(data, order, axis=-1)
    return torch.from_numpy(values).to(x.device), torch.from_numpy(order).to(x.device)


@numpy_topk.register_fake
def _(x, k):
    if _borrowed is not None:
        return _borrowed(x, k)
    shape = (*x.shape[:-1], k)
    return x.new_empty(shape), x.new_empty(shape)


def numpy_topk_setup_context(ctx, inputs, output):
    x, k = inputs
    _, indices = output
    ctx.save_for_backward(indices)
    ctx.input_shape = x.shape


def numpy_topk_backward(ctx, grad_values, grad_indices):
    (indices,) = ctx.saved_tensors
    grad_x = grad_values.new_zeros(ctx.input_shape).scatter(-1, indices, grad_values)
    return grad_x, None


numpy_topk.register_autograd(numpy_topk_backward, setup_context=numpy_topk_setup_context)
