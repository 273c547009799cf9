"""Checks for notebook 11's `numpy_topk` (see `compile_export`): `course::numpy_topk`, (x, k) -> (values,
indices) of the k largest entries along the last dim, largest first, the indices int64 and not differentiable.

Checked for values, the gradient through the values, the fake kernel (the operator called under FakeTensorMode:
it must describe both outputs as top-k's contract says) and opcheck (with the exercise's fake kernel and the None
for k standing in, `use_stand_ins`). Autograd's words about its backward become this exercise's through
`TOPK_RULES`.
"""

from __future__ import annotations

import functools

import torch

from autograder.checks import common as c
from autograder.checks.common import kept_guarded
from autograder.checks.compile_export.ops import (
    FAKE_READS_DATA, OPCHECK_RULES, OP_ERROR, OP_RULES, CUSTOM_OP_DEF, INSTANCE_DICT, OPDEFS, op_call, require_tensor, runnable,
    as_metadata, fake_outputs, opcheck_results, require_op, use_kernel_on_copies,
)
from autograder.checks.explain import Rule, literal


TOPK = "numpy_topk"
TOPK_QUALNAME = "course::numpy_topk"
TOPK_HINT = ("only the k values that were picked get a gradient, each at the place in x its index names: "
             "start from zeros of x's shape and scatter grad_values there along the last dim, with the saved indices.")
ONE_PER_INPUT = ("backward gets one grad_output per output (grad_values, grad_indices), but returns one gradient "
                 "per input of the operator, x and k: return (grad_x, None). The indices are not differentiable "
                 "and get nothing; k is an int.")

# (shape, k, dtype, seed): an input of numpy_topk (random values: no ties).
TOPK_VALUES_DEFAULT = (((3, 5), 2, torch.float64, 90),)
TOPK_VALUES_CASES = (((6,), 3, torch.float32, 91), ((2, 3, 7), 4, torch.float64, 92), ((4, 5), 5, torch.float64, 93),
                     ((3, 4), 1, torch.float32, 94))
TOPK_GRADIENT_DEFAULT = (((3, 5), 2, torch.float64, 95),)
TOPK_GRADIENT_CASES = (((6,), 3, torch.float64, 96), ((2, 3, 6), 4, torch.float64, 97), ((4, 4), 4, torch.float64, 98))
TOPK_FAKE_DEFAULT = (((3, 5), 2, torch.float64, 100),)
TOPK_FAKE_CASES = (((6,), 4, torch.float32, 101), ((2, 3, 5), 1, torch.float64, 102))
TOPK_OPCHECK_DEFAULT = (((3, 5), 2, torch.float64, True, 105),)           # (shape, k, dtype, requires_grad, seed)
TOPK_OPCHECK_CASES = (((2, 3, 6), 4, torch.float32, False, 106),)

# What autograd says about numpy_topk's backward, in the words of this exercise (PyTorch's own count of the
# operator's inputs includes one it adds itself, so its numbers are not quoted).
TOPK_RULES = (
    Rule("gradient-for-k", mistake="missing-none", types=(RuntimeError,),
         message="{what}: backward returned a gradient for k. " + literal(ONE_PER_INPUT)),
    Rule("wrong-arity", mistake="wrong-arity", types=(RuntimeError,),
         message="{what}: backward returned the wrong number of values. " + literal(ONE_PER_INPUT)),
    Rule("gradient-not-scattered", r"index -?\d+ is out of bounds for dimension",
         "{what}: backward put grad_values at places x does not have ({line}): " + literal(TOPK_HINT),
         types=(RuntimeError, IndexError)),
)


def _topk_input(shape, dtype, seed, requires_grad=False):
    return c.randn(*shape, seed=seed, requires_grad=requires_grad, dtype=dtype)


def _topk_outputs(op, x, k, what):
    """(values, indices), or a plain-words failure when the operator returns something else."""
    out = op_call(op, x, k, what=what, rules=TOPK_RULES + OP_RULES + (OP_ERROR,))
    if isinstance(out, torch.Tensor) or not isinstance(out, (tuple, list)):
        require_tensor(out, what, TOPK, TOPK_QUALNAME)
        c.fail("wrong-outputs", f"{what} returned one tensor; it returns two, (values, indices): declare the "
                                "return type tuple[torch.Tensor, torch.Tensor] and return both.")
    if len(out) != 2 or not all(isinstance(t, torch.Tensor) for t in out):
        c.fail("wrong-outputs", f"{what} returned {len(out)} outputs; it returns two tensors, (values, indices).")
    return out


def topk_values(op, cases=TOPK_VALUES_DEFAULT) -> None:
    """The k largest values along the last dim, largest first, in x's dtype; int64 indices pointing at them; x left
    unchanged. Computed by calling numpy_topk here and compared with torch.topk."""
    op = runnable(op, TOPK_QUALNAME)
    for shape, k, dtype, seed in cases:
        x = _topk_input(shape, dtype, seed)
        original = x.clone()
        what = f"numpy_topk(x, {k}) for a {dtype} x of shape {shape}"
        values, indices = _topk_outputs(op, x, k, what)
        if not bool(torch.equal(x, original)):
            c.fail("kernel-mutates-input",
                   f"{what} changed x itself, although mutates_args=() promises it does not: x.numpy() shares x's "
                   "memory, so an in-place sort (arr.sort()) or out= sorts x too. Use np.argsort, which returns new "
                   "arrays.")
        expected = torch.topk(original, k, dim=-1)
        smallest = torch.topk(original, k, dim=-1, largest=False).values
        if tuple(values.shape) == tuple(smallest.shape) and values.dtype == dtype and bool(torch.equal(values, smallest)):
            c.fail("smallest-k", f"{what} returned the k smallest values: top-k picks the k largest, largest first "
                                 "(argsort of -x, or argsort of x reversed).")
        c.require_close(values, expected.values, f"the values of {what}", "wrong-forward",
                        "they should be the k largest entries along the last dim, largest first, in x's dtype.")
        if indices.dtype != torch.int64:
            c.fail("wrong-index-dtype",
                   f"the indices of {what} have dtype {indices.dtype}; indices are int64 (torch.long): that is what "
                   "torch.topk, gather and scatter use. Do not convert np.argsort's result to another type.")
        if tuple(indices.shape) != tuple(expected.indices.shape) or not bool(torch.equal(indices, expected.indices)):
            c.fail("wrong-indices", f"the indices of {what} do not name the places in x of the values returned: "
                                    "indices[..., j] is where values[..., j] sits along the last dim of x.")


def topk_gradient(op, cases=TOPK_GRADIENT_DEFAULT) -> None:
    """The gradient through the values (weighted by a random grad_values) lands at the picked places of x, and
    a float64 gradcheck of the values passes. Computed here, through the operator. The kernel runs on a copy of x,
    its outputs in the contract's dtypes (use_kernel_on_copies): its values and x left unchanged are topk_values'
    rule."""
    op = runnable(op, TOPK_QUALNAME)
    use_kernel_on_copies(TOPK_QUALNAME, True)
    try:
        _topk_gradient(op, cases)
    finally:
        use_kernel_on_copies(TOPK_QUALNAME, False)


def _topk_gradient(op, cases) -> None:
    for shape, k, dtype, seed in cases:
        x = _topk_input(shape, dtype, seed, requires_grad=True)
        what = f"numpy_topk(x, {k}) for x of shape {shape}"
        values, indices = _topk_outputs(op, x, k, what)
        weights = c.randn(*values.shape, seed=seed + 1000, requires_grad=False, dtype=dtype)
        (grad,) = op_call(c.backward_grads, values, [x], weights, what=f"the backward of {what}",
                           rules=TOPK_RULES + OP_RULES + (OP_ERROR,))
        if grad is None:
            c.fail("no-gradient", f"{what} gave x no gradient through the values: " + TOPK_HINT)
        expected = torch.zeros_like(x.detach()).scatter(-1, _places(indices, x, k), weights)
        c.require_float64_kept(grad, expected, f"the gradient of x through the values of {what}", "backward")
        c.require_close(grad, expected, f"the gradient of x through the values of {what}", "gradient-not-scattered",
                        TOPK_HINT, rtol=1e-12, atol=0.0)
        op_call(c.gradcheck, lambda t: op(t, k)[0], (x,), f"the values of {what}", "gradient-not-scattered",
                 TOPK_HINT, what=what, rules=TOPK_RULES + OP_RULES + (OP_ERROR,))
    _require_kept_guarded(op)


def _negate_x(inputs, outputs) -> None:
    """x changed in place so that its top k change too (adding a constant to every entry would keep them)."""
    inputs[0].neg_()


def _places(indices, x, k):
    """Where the gradient of the values goes: the places the answer's own indices name (which places the kernel picks
    is topk_values' rule), or top-k's where they cannot name places of x."""
    if isinstance(indices, torch.Tensor) and indices.dtype == torch.int64 and tuple(indices.shape) == (
            *x.shape[:-1], k) and bool(((indices >= 0) & (indices < x.shape[-1])).all()):
        return indices.detach()
    return torch.topk(x.detach(), k, dim=-1).indices


def _require_kept_guarded(op) -> None:
    """x, then the indices (an output, which setup_context is taught to save: notebook 11's topk exercise, hint 3, and
    demo_29's numpy_exp saving its output), each changed in place after forward: backward raises autograd's in-place
    error or gives the gradient of the call left alone (common/kept_guarded.py). The gradient's rule (there is no
    saving rule)."""
    x = _topk_input((3, 5), torch.float64, 99)
    what = "numpy_topk(x, 2), then a change in place before backward"
    for kept, change in (("x", _negate_x), ("the indices", kept_guarded.change_output(1))):
        op_call(functools.partial(kept_guarded.require_kept_guarded, lambda t: op(t, 2), [x], kept=kept, change=change,
                                  what="numpy_topk's backward"), what=what, rules=TOPK_RULES + OP_RULES + (OP_ERROR,))


def topk_fake_kernel(op, cases=TOPK_FAKE_DEFAULT) -> None:
    """The registered fake kernel where it is used: numpy_topk called under FakeTensorMode on a fake x (no data, as
    torch.compile, torch.export and opcheck call it), both outputs' shapes and dtypes compared here with top-k's
    contract ((*x.shape[:-1], k), x's dtype and int64). The real kernel is not run: its values are topk_values'
    rule."""
    require_op(op, TOPK, TOPK_QUALNAME)
    for shape, k, dtype, seed in cases:
        x = _topk_input(shape, dtype, seed)
        what = f"the fake kernel of numpy_topk(x, {k}), for a fake {dtype} x of shape {shape} (FakeTensorMode)"
        got = op_call(fake_outputs, TOPK_QUALNAME, tuple(x.shape), tuple(x.stride()), dtype, (k,), what=what,
                       rules=(FAKE_READS_DATA,) + TOPK_RULES + OP_RULES + (OP_ERROR,))
        got = [as_metadata(item) for item in got] if isinstance(got, (list, tuple)) else []
        if len(got) != 2 or any(item is None for item in got):
            c.fail("fake-kernel-mismatch", f"{what} returned {len(got)} value(s); the fake kernel describes both "
                                           "outputs, values and indices, as two tensors.")
        expected = (*x.shape[:-1], k)
        for name, (f_shape, _, f_dtype), e_dtype in (("values", got[0], dtype), ("indices", got[1], torch.int64)):
            if (f_shape, f_dtype) != (tuple(expected), str(e_dtype)):
                c.fail("fake-kernel-mismatch",
                       f"{what} describes the {name} as shape {f_shape}, {f_dtype}, but top-k returns shape "
                       f"{tuple(expected)}, {e_dtype}. Both outputs keep x's leading dimensions and have k entries in "
                       "the last one; the values have x's dtype, the indices torch.int64.")


_OWN: dict = {}


def _one_per_input(backward):
    """The learner's backward with its result read as (the gradient of x, None for k): its arity is
    topk_gradient's rule."""
    def backward_one_per_input(ctx, *grads):
        result = backward(ctx, *grads)
        return (result[0] if isinstance(result, (tuple, list)) and len(result) > 0 else result), None

    return backward_one_per_input


@c.probe
def use_stand_ins(on: bool) -> None:
    """In the learner's process: while `on`, numpy_topk (found in torch.library's registry) runs on fake tensors
    with a fake kernel made here (none at import: the fake test, in a fork of its own, reaches none), and its
    backward's result is read as (grad_x, None); then with its own again. opcheck then judges the schema, the
    registration and tracing: the fake kernel and the arity cost only their own tests' points."""
    opdef = OPDEFS.get(TOPK_QUALNAME)
    if type(opdef) is not CUSTOM_OP_DEF:
        return
    state = INSTANCE_DICT(opdef, "__dict__")
    if on:
        def stand_in_fake(x, k):   # made here, in this test's copy only: no module of the checks holds a right fake
            shape = (*x.shape[:-1], k)
            return x.new_empty(shape), x.new_empty(shape, dtype=torch.int64)

        _OWN["fake"], _OWN["backward"] = state.get("_abstract_fn"), state.get("_backward_fn")
        state["_abstract_fn"] = stand_in_fake
        if _OWN["backward"] is not None:
            state["_backward_fn"] = _one_per_input(_OWN["backward"])
    elif _OWN:
        state["_abstract_fn"], state["_backward_fn"] = _OWN.pop("fake"), _OWN.pop("backward")


def topk_opcheck(op, cases=TOPK_OPCHECK_DEFAULT) -> None:
    """torch.library.opcheck(numpy_topk, (x, k)) passes (schema, autograd registration, AOT dispatch), in the
    learner's process, with the exercise's fake kernel and backward's result read as (grad_x, None)
    (`use_stand_ins`): the fake kernel and the arity are the fake and gradient tests' rules."""
    op = require_op(op, TOPK, TOPK_QUALNAME)["operator"]
    use_stand_ins(True)
    use_kernel_on_copies(TOPK_QUALNAME, True)   # the kernel's values, dtypes and x left alone: topk_values' rule
    try:
        backward_right = _gradient_rule_holds(op)
        for shape, k, dtype, requires_grad, seed in cases:
            # a wrong backward is topk_gradient's rule: opcheck then judges the rest on an x without grad
            x = _topk_input(shape, dtype, seed, requires_grad=requires_grad and backward_right)
            what = f"torch.library.opcheck(numpy_topk, (x, {k})) for x of shape {shape}, {dtype}"
            try:
                op_call(opcheck_results, op, (x, k), what=what, rules=TOPK_RULES + OPCHECK_RULES)
            except c.Mistake as mistake:
                if mistake.code == "fake-kernel-mismatch":   # the fake is the exercise's here: the real kernel differs
                    _require_kernel_contract(op, x, k, what)
                raise
    finally:
        use_kernel_on_copies(TOPK_QUALNAME, False)
        use_stand_ins(False)


def _gradient_rule_holds(op) -> bool:
    """Whether topk_gradient's visible case passes (the kernel on copies, use_kernel_on_copies, already on)."""
    try:
        _topk_gradient(op, TOPK_GRADIENT_DEFAULT)
    except c.Mistake:
        return False
    return True


def _require_kernel_contract(op, x, k, what) -> None:
    """The real kernel's outputs as top-k's contract says (values of x's dtype, int64 indices, both of x's leading
    shape and k): where one is not, opcheck's fake-against-real comparison fails by the real kernel's fault."""
    out = op_call(op, x.detach().clone(), k, what=f"numpy_topk(x, {k})")
    shape = (*x.shape[:-1], k)
    outputs = out if isinstance(out, (tuple, list)) else ()
    for name, got, dtype in zip(("values", "indices"), outputs, (x.dtype, torch.int64)):
        if isinstance(got, torch.Tensor) and (got.dtype != dtype or tuple(got.shape) != shape):
            c.fail("kernel-output-dtype",
                   f"{what}: the real kernel returns the {name} as shape {tuple(got.shape)}, {got.dtype}, but top-k's "
                   f"{name} have shape {shape}, {dtype}, which is what a fake kernel describes: the disagreement is "
                   "the real kernel's. Convert the kernel's result to that dtype (NumPy's arrays keep their own).")
