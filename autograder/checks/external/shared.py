"""What notebook 09's three NumPy-backed Functions' checks share (see `external`): the plain words for the NumPy
pitfalls (negative strides, .numpy() on a tensor that requires grad) and a wrong argument count
(`EXTERNAL_RULES`), and calls, gradchecks and gradients that give them.
"""

from __future__ import annotations

from autograder.checks import common as c
from autograder.checks.explain import Rule, explained


ONCE = "trying to differentiate twice a function that was marked with @once_differentiable"
NUMPY_ERROR = "Can't call numpy() on Tensor that requires grad"


# Plain words for the NumPy pitfalls (negative strides) and a wrong argument count.
EXTERNAL_RULES = (
    Rule("negative-strides", r"negative.*stride|stride.*negative",
         "{what}: torch.from_numpy refused an array with negative strides (np.flip returns a reversed view): make a "
         "contiguous copy first, e.g. np.flip(a, axis).copy() or np.ascontiguousarray.", types=(ValueError,)),
    Rule("wrong-signature", error="wrong-signature", message=
         "{what} raised TypeError: {text}. forward takes (ctx, *inputs); backward takes ctx plus one gradient per "
         "forward output.", types=(TypeError,)),
)


def call(fn, *args, what):
    """Like common.call, with plain words for the NumPy pitfalls."""
    with explained(what, EXTERNAL_RULES):
        return c.call(fn, *args, what=what)


def gradcheck(fn, inputs, what, hint, reference=None):
    with explained(what, EXTERNAL_RULES):
        c.gradcheck(c.judged_elsewhere.on_copies(fn), inputs, what, hint=hint, reference=reference)


def grads_of(output, inputs, grad_output=None, what="backward"):
    with explained(what, EXTERNAL_RULES):
        return c.backward_grads(output, inputs, grad_output, what=what)
