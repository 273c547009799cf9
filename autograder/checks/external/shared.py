"""What notebook 09's three NumPy-backed Functions' checks share (see `external`): the plain words for the NumPy
pitfalls (negative strides, .numpy() on a tensor that requires grad) and a wrong argument count
(`EXTERNAL_RULES`), and calls, gradchecks and gradients that give them.
"""

from __future__ import annotations

import torch

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


def require_grad_output_unshared(Fn, args, name: str, output: int = 0) -> None:
    """A backward that writes into grad_output changes what autograd handed other branches too; writes that leave
    a broadcast grad_output as it was (a permutation of equal entries) show only there. Read in the learner's
    process (`shared_grad_output_facts`): the values test's rule (inplace-grad-output)."""
    facts = c.call(shared_grad_output_facts, Fn, tuple(args), output, what=f"{name}.backward")
    if isinstance(facts, dict) and facts.get("changed"):
        c.fail("inplace-grad-output",
               f"the gradient of another term of a sum, {name}.apply(x)[{output}] + w, came out changed: "
               f"{name}.backward wrote into grad_output in place. Autograd handed the sum's one grad_output to both "
               "terms: backward must not change grad_output, which belongs to autograd; build a new tensor from it "
               "instead.")


@c.probe
def shared_grad_output_facts(Fn, args, output: int) -> dict:
    """Probe: Fn.apply(*args)[output] + w * 1.0 (w's branch made first, so that Fn's backward runs first), with a
    grad_output of distinct entries that autograd hands to both terms: whether w's gradient is still that
    grad_output. Nothing is said when the call or its backward fails (the values test's cases name that)."""
    leaves = [a.detach().clone().requires_grad_(True) if isinstance(a, torch.Tensor) and a.is_floating_point() else a
              for a in args]
    try:
        out = Fn.apply(*leaves)[output]
        w = torch.zeros(out.shape, dtype=out.dtype, requires_grad=True)
        weights = torch.arange(1.0, out.numel() + 1.0, dtype=out.dtype).reshape(out.shape)
        other = w * 1.0
        out = Fn.apply(*leaves)[output]  # made after w's branch: its node runs first in backward
        wrt = [w] + [a for a in leaves if isinstance(a, torch.Tensor) and a.requires_grad]
        grad = torch.autograd.grad(out + other, wrt, weights.clone(), allow_unused=True)[0]
    except Exception:  # noqa: BLE001 (any failure of the call: the values test's cases name it)
        return {"changed": False}
    return {"changed": not torch.equal(grad, weights)}
