"""Checks of RunningSum (notebook 10): `RunningSum.apply(x)`, a NumPy cumulative sum along the last dimension,
with its own vmap staticmethod (the contract: torch_func/__init__.py)."""

from __future__ import annotations

import torch

from autograder.checks import common as c
from autograder.checks.common.shared_grad_output import require_grad_output_kept
from autograder.checks.explain import Rule
from autograder.checks.torch_func.methods import VmapInfo
from autograder.checks.torch_func.probes import transform
from autograder.checks.torch_func.rules import DIRECT_RULES, direct, gradchecked, run


# ------------------------------------------------------------------------------------------ RunningSum
# A case is ("values", seed, shape), ("gradcheck", seed, shape) or ("vmap", seed, per-sample shape, batch size,
# in_dims[0]).

RUNNING = "RunningSum"
RUNNING_HINT = ("the running sum's gradient is the running sum of grad_output taken from the end of the last dimension "
                "(each input reaches every output at or after it), with torch operations.")
RUNNING_VMAP_HINT = ("vmap(info, in_dims, x) receives the whole batch, with the batch on dimension in_dims[0], and "
                     "returns (output, out_dims): the output of every sample, with its batch on dimension out_dims.")

RUNNING_VMAP_RULES = (
    Rule("no-vmap-rule", error="no-vmap-rule", message=
         "{what}: your Function has no vmap staticmethod (\"{text}\"). generate_vmap_rule cannot batch a NumPy "
         "kernel: write @staticmethod vmap(info, in_dims, x) that runs the kernel on the whole batch and returns "
         "(output, out_dims).", types=(NotImplementedError,)),
    Rule("wrong-vmap", r"got \(tuple|'tuple' object|tuple indices", types=(TypeError,), message=
         "{what} raised TypeError: {line}. in_dims is a tuple, one entry per input of forward (here the batch dimension "
         "of x is in_dims[0]); out_dims is an int, or a tuple of one per output."),
) + DIRECT_RULES


def _running_values(Fn, seed, shape) -> None:
    c.require_self_contained(Fn, RUNNING)
    x = c.randn(*shape, seed=seed)
    what = f"RunningSum.apply(x) for x of shape {shape}"
    out = run(Fn.apply, x, what=what)
    c.require_close(out, torch.cumsum(x.detach(), -1), what, "wrong-forward",
                    "forward returns the cumulative sum along the last dimension (np.cumsum(..., axis=-1)).")
    require_grad_output_kept(lambda: [(run(Fn.apply, t, what=what), [t]) for t in (
        c.randn(*shape, seed=seed + 50), c.randn(*shape, seed=seed + 60))], f"the gradient of {what}, summed", RUNNING)
    g = c.randn(*shape, seed=seed + 1, requires_grad=False)
    (grad,) = run(c.backward_grads, out, [x], g, what="RunningSum.backward")
    c.require_close(grad, g.flip(-1).cumsum(-1).flip(-1), f"the gradient of {what}", "wrong-derivative", RUNNING_HINT)


def _running_gradcheck(Fn, seed, shape) -> None:
    gradchecked(Fn.apply, (c.randn(*shape, seed=seed),), f"RunningSum on shape {shape}", RUNNING_HINT,
                reference=lambda t: torch.cumsum(t, -1))


def _running_vmap(Fn, seed, sample_shape, batch, in_dim) -> None:
    """Fn.vmap called as torch.func.vmap calls it: the whole batch, the batch on dimension in_dim."""
    if bool(Fn.generate_vmap_rule):
        c.fail("generated-vmap-rule",
               "RunningSum sets generate_vmap_rule = True: that rule runs forward on batched wrapper tensors, which "
               "have no storage, so a NumPy kernel cannot run on them (\"Cannot access data pointer\"). Remove it and "
               "write a vmap staticmethod. " + RUNNING_VMAP_HINT)
    samples = [c.randn(*sample_shape, seed=seed + k, requires_grad=False) for k in range(batch)]
    x = torch.stack(samples, dim=in_dim)
    what = (f"RunningSum.vmap(info, ({in_dim},), x) for {batch} samples of shape {sample_shape}, batched on dimension "
            f"{in_dim} (x of shape {tuple(x.shape)}), called as vmap calls it")
    result = direct(Fn.vmap, VmapInfo(batch), (in_dim,), x, what=what, rules=RUNNING_VMAP_RULES)
    out, dims = result if isinstance(result, (tuple, list)) and len(result) == 2 else (result, None)
    dims = dims[0] if isinstance(dims, (tuple, list)) and len(dims) == 1 else dims
    if not isinstance(out, torch.Tensor) or not isinstance(dims, int) or not -out.dim() <= dims < out.dim():
        c.fail("wrong-vmap", f"{what}: it must return a pair (output, out_dims), out_dims the dimension of output "
                             "that holds the batch (an int). " + RUNNING_VMAP_HINT)
    got = out.movedim(dims, 0)
    expected = torch.stack([torch.cumsum(s, -1) for s in samples])
    if got.shape != expected.shape:
        c.fail("wrong-vmap", f"{what}: its output, with the batch moved from out_dims = {dims} to the front, has shape "
                             f"{tuple(got.shape)}, not {tuple(expected.shape)} ({batch} samples of shape "
                             f"{sample_shape}): out_dims must name the dimension of the output that holds the batch, "
                             "wherever your vmap put it. Each sample must get its own running sum. " + RUNNING_VMAP_HINT)
    if got.shape == expected.shape and in_dim == x.dim() - 1 and bool(
            torch.allclose(got, torch.cumsum(x, -1).movedim(in_dim, 0))) and not bool(torch.allclose(got, expected)):
        c.fail("vmap-sums-the-batch",
               f"{what}: its output sums across the batch. vmap put the batch on the last dimension, the one your "
               "kernel sums along, and your vmap ran the kernel on x as it came. Put the batch on a dimension the "
               "kernel does not sum along before calling it, and say in out_dims where it ended up. " +
               RUNNING_VMAP_HINT)
    c.require_close(got, expected, f"{what}, the output moved from out_dims to dimension 0", "wrong-vmap",
                    "each sample must get its own running sum. " + RUNNING_VMAP_HINT)
    # The same batch through torch.func.vmap itself, in the learner's process, where `info` is vmap's own (the judge's
    # stand-in for it can be recognised).
    real_what = f"torch.func.vmap(RunningSum.apply, in_dims={in_dim}) on x of shape {tuple(x.shape)}"
    with c.explained(real_what, RUNNING_VMAP_RULES):
        real = transform(Fn, "vmap", x, {"in_dims": in_dim})
    c.require_close(real, expected, f"Called directly, RunningSum.vmap gave each sample its running sum; but under "
                    f"{real_what}, where info is vmap's own, the output", "wrong-vmap",
                    "each sample must get its own running sum. " + RUNNING_VMAP_HINT)


RUNNING_CASE_CHECKS = {"values": _running_values, "gradcheck": _running_gradcheck, "vmap": _running_vmap}


def _running_cases(Fn, cases) -> None:
    c.require_function(Fn, RUNNING)
    for kind, *params in cases:
        RUNNING_CASE_CHECKS[kind](Fn, *params)


RUNNING_VALUES_CASES = (("values", 300, (5,)), ("values", 301, (2, 4)), ("values", 302, (2, 3, 4)),
                        ("gradcheck", 303, (4,)), ("gradcheck", 304, (2, 3)))
RUNNING_VMAP_CASES = (("vmap", 310, (4,), 3, 0), ("vmap", 320, (4,), 3, 1), ("vmap", 330, (2, 5), 4, 2),
                      ("vmap", 340, (2, 5), 3, 1), ("vmap", 350, (3,), 1, 1))


def running_values(RunningSum, cases=(("values", 300, (2, 4)),)) -> None:
    """The running sum along the last dimension and its gradient, through ordinary autograd (the table: shapes,
    gradcheck)."""
    _running_cases(RunningSum, cases)


@c.inputs_judged_elsewhere()  # a forward that changes its inputs in place: the values test's rule
def running_vmap(RunningSum, cases=(("vmap", 310, (4,), 3, 0), ("vmap", 320, (4,), 3, 1))) -> None:
    """RunningSum.vmap, called in the judge as vmap calls it, with the batch on the first and on the last
    dimension, against the running sum of each sample computed here (the table: 2-d samples, other in_dims)."""
    _running_cases(RunningSum, cases)
