"""Building blocks shared by every exercise's checks.

A check either returns quietly or raises `Mistake`, whose message speaks to the learner in plain words
(which rule was broken, how to fix it) and whose `code` names the mistake for class analytics.

The trusted references below are bound when this module is imported. The grading sandbox imports it
before any student code runs, so a student who rebinds `torch.autograd.gradcheck` or `torch.allclose`
does not change what these names point to (and the sandbox also verifies that nothing was rebound).
"""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
from typing import Callable, Sequence

import torch
from torch.autograd import gradcheck as _gradcheck
from torch.autograd import gradgradcheck as _gradgradcheck

from autograder.checks import raw_errors
from autograder.engine import shared
# the checks' one explain mechanism
from autograder.checks.explain import Rule, explain, explained, first_line, literal  # noqa: F401
from autograder.engine.shared import (PROBES, FakeCtx, Mistake, attach_learner, base_seed, compiling_probe,  # noqa: F401
                                      fail, probe, set_base_seed)
# the grading model's check, which the first visible test of every exercise runs
from autograder.checks.common.self_contained import require_self_contained  # noqa: F401
from autograder.checks.common import fast_mode, judged_elsewhere, shared_grad_output
from autograder.checks.common.judged_elsewhere import inputs_judged_elsewhere, waits_for  # noqa: F401
from autograder.checks.common.precision import (backward_in_float32, blame_float32_forward, float32_rounded,  # noqa
                                                off_by_float32, precision_elsewhere, require_float64_kept, tolerated)


# ------------------------------------------------------------------------ the learner's process (probes)
# When grading, checks run in a judge process and the learner's objects are proxies there (see
# autograder/engine/sandbox/proxy.py): calls and gradients cross by value and are compared here. The few facts only
# the learner's process can observe (what a Function saved, a node's type, hooks' view of saved memory) come
# from probes: functions of the checks that run *there*, registered by name, whose results cross as data.
# In a notebook there is one process and a probe is a plain call.

def grad_fn_name(tensor) -> str | None:
    """The type name of `tensor.grad_fn`, as the learner's process saw it for a tensor it returned."""
    if shared.learner() is not None:
        facts = shared.facts_of(tensor)
        if facts is not None:
            if not facts["plain"]:  # a Tensor subclass: whatever its node, it is not the one a Function gives
                return f"{facts['grad_fn']} (on a {facts['cls']}, not a plain torch.Tensor)"
            return facts["grad_fn"]
    node = getattr(tensor, "grad_fn", None)
    return type(node).__name__ if node is not None else None


def same_storage(a, b) -> bool:
    """Whether two tensors share memory (a detached alias or a view of the other), as the learner's process
    saw it for tensors it returned."""
    if shared.learner() is not None:
        fa, fb = shared.facts_of(a), shared.facts_of(b)
        if fa is not None and fb is not None:
            return bool(fa["ptr"]) and fa["ptr"] == fb["ptr"]
    return a.numel() > 0 and b.numel() > 0 and a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


@probe
def function_facts(obj) -> dict:
    """What kind of object `obj` is, for require_function (probe: type checks happen where obj lives), by its
    C-level type: an object whose `__class__` says `type` (and whose `__bases__` name Function) is not a class."""
    facts = {"is_class": issubclass(type(obj), type), "type": type(obj).__name__, "is_function": False,
             "not_static": [], "setup_context": False, "vmap_rule": False, "callable": callable(obj)}
    if facts["is_class"]:
        facts["is_function"] = issubclass(obj, torch.autograd.Function)
        facts["not_static"] = [m for m in ("forward", "backward") if m in vars(obj)
                               and not isinstance(inspect.getattr_static(obj, m), staticmethod)]
    if facts["is_function"]:
        own = getattr(obj.setup_context, "__func__", obj.setup_context)
        base = torch.autograd.Function.setup_context
        facts["setup_context"] = own is not getattr(base, "__func__", base)
        facts["vmap_rule"] = bool(getattr(obj, "generate_vmap_rule", False))
    return facts


def uses_setup_context(Fn) -> bool:
    """True for the `forward(*inputs)` + `setup_context(ctx, inputs, output)` spelling."""
    return function_facts(Fn)["setup_context"]


# --------------------------------------------------------------------------------------------- inputs

def generator(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def randn(*shape: int, seed: int = 0, requires_grad: bool = True, dtype=torch.float64, low: float | None = None,
          away_from: Sequence[float] = (), margin: float = 0.05, scale: float = 1.0) -> torch.Tensor:
    """A float64 random tensor, optionally kept at least `margin` away from `away_from` points.

    Keeping inputs away from kinks (0 for abs, .5 for round, ...) means a finite-difference check can
    never fail by landing on a non-differentiable point.
    """
    x = torch.randn(tuple(shape), generator=generator(seed + shared.base_seed()), dtype=dtype) * scale
    for point in away_from:
        close = (x - point).abs() < margin
        x = torch.where(close, x + torch.sign(x - point + 1e-12) * 2 * margin, x)
    if low is not None:
        x = x.abs() + low
    return x.requires_grad_(requires_grad)


# ------------------------------------------------------------------------------------------- structure

def require_function(obj, name: str) -> None:
    """`obj` must be a torch.autograd.Function subclass whose forward and backward are staticmethods."""
    if obj is None:
        fail("not-defined", f"`{name}` is not defined: run (or write) its answer cell.")
    facts = function_facts(obj)
    if not (facts["is_class"] and facts["is_function"]):
        fail("not-a-function",
             f"`{name}` must be a class that subclasses torch.autograd.Function, got {facts['type']}.")
    for method in facts["not_static"]:
        fail("not-staticmethod",
             f"`{name}.{method}` must be decorated with @staticmethod: autograd calls it on the class, "
             "with `ctx` as the first argument, never on an instance.")


def snapshot_inputs(values) -> list:
    """(tensor, copy of its values) for every tensor among `values` (and in tuples or lists among them)."""
    found = []
    for value in values:
        if isinstance(value, (tuple, list)):
            found += snapshot_inputs(value)
        elif isinstance(value, torch.Tensor):
            found.append((value, value.detach().clone()))
    return found


def require_inputs_unchanged(snapshots: list, what: str) -> None:
    """Every expected value is computed from the inputs after the call: an input the learner's code
    changed in place (x.data.zero_(), x.mul_() under no_grad) would make wrong answers look right."""
    if judged_elsewhere.changed(snapshots):
        fail("modifies-input",
             f"{what} changed one of its inputs in place (for example with x.data.zero_() or "
             "x.mul_(...)). A Function must leave its inputs as they were (unless it declares the change "
             "with ctx.mark_dirty): work on new tensors (x * 2, x.clone()) instead.")


NOT_IMPLEMENTED = Rule("not-implemented", error="not-implemented",
                       message="{what} is not implemented yet (it still raises NotImplementedError).")

# What autograd's engine says about a backward's return value (raw_errors.py recognises it), in the learner's words:
# positions from 1 (the engine counts from 1 "at position" and from 0 "at index"), and the input's name where
# `engine_rules` knows it.
ENGINE_RULES = (
    NOT_IMPLEMENTED,
    Rule("wrong-arity", error="wrong-arity", types=(RuntimeError,),
         message="{what}: backward returned {got} gradients but forward takes {expected} inputs. Return exactly one "
                 "value per forward input, in order, with None for inputs that are not tensors."),
    Rule("missing-none", error="missing-none", types=(RuntimeError,),
         message="{what}: backward returned a gradient for {input}, which is not a tensor that requires grad (a "
                 "float, an int, a flag). Return None in that position."),
    Rule("wrong-grad-shape", error="wrong-grad-shape", types=(RuntimeError,),
         message="{what}: the gradient for {input} has shape [{got}] but that input has shape [{expected}]. If "
                 "forward reduced, expand grad_output back to the input's shape; if it broadcast, sum it down."),
    Rule("inplace-error", error="inplace-error", types=(RuntimeError,), message=
         "{what}: a tensor saved for backward was changed in place after it was saved (autograd's in-place error)."),
    # grad_output after .sum() is one number broadcast (expanded) to every element: a write into it raises this.
    Rule("inplace-grad-output", error="overlapping-write", types=(RuntimeError,),
         message="{what} wrote in place into a tensor whose elements share one memory location, as grad_output "
                 "after .sum() does (one number broadcast to every element): backward must not change grad_output, "
                 "which belongs to autograd; build a new tensor (grad_output * ...) instead."),
)


def engine_rules(names: Sequence[str] = ()) -> tuple:
    """ENGINE_RULES, naming the inputs of forward (in order) in the feedback: "input 3 (alpha)"."""
    return tuple(dataclasses.replace(rule, inputs=tuple(names)) for rule in ENGINE_RULES) if names else ENGINE_RULES


def call(fn: Callable, *args, what: str, names: Sequence[str] = (), as_given: bool = False):
    """Call learner code, turning 'not implemented yet' and crashes into plain feedback (`names`: forward's
    inputs, for the feedback). Inside `inputs_judged_elsewhere()` a change of the inputs is another test's rule
    (judged_elsewhere.py): the call runs again on copies, or with `as_given` keeps the tensors it was handed."""
    inputs = snapshot_inputs(args)
    with explained(what, engine_rules(names)):
        result = judged_elsewhere.first_call(fn, args)
    if judged_elsewhere.active() and judged_elsewhere.changed(inputs):
        if as_given:
            return result
        judged_elsewhere.put_back(inputs)
        judged_elsewhere.RUN_AGAIN[0] += 1
        with explained(what, engine_rules(names)):
            return fn(*judged_elsewhere.copies(args))
    require_inputs_unchanged(inputs, what)
    return result


def inplace_error(fn: Callable[[], object], what: str, names: Sequence[str] = ()) -> str | None:
    """Run `fn()` (a backward) where autograd's in-place error may be the expected outcome: the error's first
    line if it raised that error, None if it returned. Any other error becomes feedback as in `call`."""
    rules = tuple(rule for rule in engine_rules(names) if rule.code != "inplace-error")
    try:
        with explained(what, rules):
            fn()
    except RuntimeError as error:  # the one error a caller may be waiting for; any other passes on
        # an output that is an input changed in place by forward (the values test's rule) and changed again
        if not raw_errors.says(error, "inplace-error") and not raw_errors.says(error, "view-changed-in-place"):
            raise
        return first_line(str(error), 160)
    return None


def require_shape(tensor, shape, what: str, code: str = "wrong-shape") -> None:
    if not isinstance(tensor, torch.Tensor):
        fail("not-a-tensor", f"{what} should be a tensor, got {type(tensor).__name__}.")
    if tuple(tensor.shape) != tuple(shape):
        fail(code, f"{what} has shape {tuple(tensor.shape)} but should have shape {tuple(shape)}.")


def require_close(actual, expected, what: str, code: str, hint: str = "", rtol=1e-7, atol=1e-7) -> None:
    if not isinstance(actual, torch.Tensor):
        fail("not-a-tensor", f"{what} should be a tensor, got {type(actual).__name__}.")
    if tuple(actual.shape) != tuple(expected.shape):
        fail("wrong-shape", f"{what} has shape {tuple(actual.shape)} but should have shape "
                            f"{tuple(expected.shape)}.")
    if actual.dtype != expected.dtype:
        fail("wrong-dtype", f"{what} has dtype {actual.dtype} but should have {expected.dtype} "
                            "(compute in the input's dtype, or convert the result back to it).")
    if not bool(torch.allclose(actual.detach(), expected.detach(), rtol=rtol, atol=atol, equal_nan=False)) \
            and not tolerated(actual, expected):
        worst = (actual.detach() - expected.detach()).abs().max().item()
        fail(code, f"{what} is wrong (largest error {worst:.3g}). {hint}".strip())


def require_own_node(output, function: type, name: str) -> None:
    """The output's grad_fn must be the node autograd made for `function` (so `.apply` was used)."""
    expected = f"{function.__name__}Backward"
    got = grad_fn_name(output)
    if got == expected and shared.learner() is not None:
        # Grading: a node's name can be given to another class; which Function's backward the node runs
        # cannot (the learner's process reports it as that Function's handle, read where Python cannot lie).
        facts, own = shared.facts_of(output), shared.handle_id(function)
        if facts is not None and own is not None and facts.get("fwd") != own:
            got = f"{got} (the node of another Function)"
    if got != expected:
        fail("forward-called-directly",
             f"the output of {name} has grad_fn {got}, not {expected}: autograd never records your Function, "
             f"so your backward is skipped. Call {name}.apply(...), never {name}.forward(...) directly, "
             "and do not wrap the work in another Function.")


# --------------------------------------------------------------------------------------- gradient checks

_MISMATCH = ("{what}: backward's gradient does not match the finite-difference gradient (output {output_position} "
             "with respect to {input}). ")


def _gradcheck_rules(code: str, hint: str, names: Sequence[str] = ()) -> tuple:
    return engine_rules(names) + (
        Rule(code, r"Jacobian mismatch for output (?P<output>\d+) with respect to input (?P<index>\d+)(?!\d)",
             _MISMATCH + literal(hint), types=(RuntimeError,), inputs=tuple(names)),
        Rule(code, "Jacobian mismatch", "{what}: backward's gradient does not match the finite-difference "
             "gradient. " + literal(hint), types=(RuntimeError,)),
        Rule("ignores-grad-output", "backward not multiplied by grad_output",
             "{what}: backward ignores grad_output. It receives dLoss/dy and must return dLoss/dx = grad_output * "
             "(local derivative).", types=(RuntimeError,)),
        Rule("no-graph", error=("no-graph", "not-differentiable"), types=(RuntimeError,),
             message="{what}: the output is not connected to the inputs' graph ({line})."),
        Rule(code, None, "{what}: gradcheck failed: {line}. " + literal(hint), types=(RuntimeError,)),
    )


# Fast then slow. torch's fast mode compares one random projection of the Jacobian, v^T J u, analytical against
# numerical: a handful of evaluations of `fn`, where the slow mode takes two per input element and two backwards
# per output element (each a round trip to the learner's process when grading). A pass in fast mode is the
# verdict; anything else runs the slow mode from the same start (the global RNG, from which gradgradcheck draws
# its grad_outputs, and the inputs' values restored), and the slow mode's verdict and message are the ones given,
# exactly as if it had run alone: the slow mode names the first output and input that differ in its own order
# (outputs, then inputs; fast mode goes inputs first). Fast mode draws u and v from a generator of its own with a
# fixed seed: it never moves the global RNG and answers the same every run.
# Where fast mode passes and the slow mode would not:
# - an answer that changes its inputs in place (zoo numpy_sin/mutates_input): fast mode writes the whole input
#   before each evaluation, which undoes the change; the slow mode writes one element, and the others keep it.
#   So a fast pass counts only if the inputs kept their values.
# - an error in a few elements: fast mode's atol is scaled by sum(u) * sum(v), about 0.75 * sqrt(n m) for n
#   input and m output elements, while one wrong element weighs about 1 / sqrt(n m) in v^T J u. At torch's
#   tolerances, one element of a (2, 3, 4) input off by 2.5% passes fast mode (the slow mode sees 0.1%), and of
#   a (4, 5, 6) input off by 200%. So fast mode runs with tolerances FAST_TIGHTER times smaller: a pass then
#   needs the projection to agree to 1e-9 + 1e-7 of it, and one wrong element is seen from 0.02% on those
#   shapes (the checks' largest Jacobian is 48 x 24), while the finite differences of every reference
#   and honest answer still agree to 1e-10 + 1e-8. Tighter can only send more cases to the slow mode, never
#   pass one that torch's fast mode fails. Only errors that cancel in the projection stay unseen.
#   tests/more/test_gradcheck_modes.py compares every reference, zoo entry and honest answer with the slow mode alone.
# The options the checks pass (check_forward_ad, check_backward_ad, check_undefined_grad) run the same steps in
# both modes (torch 2.13: only the Jacobian comparison and its reentrancy check, with nondet_tol, differ).
FAST_TIGHTER = 1e4  # fast mode's atol and rtol are the slow mode's divided by this


def _fast_then_slow(check: Callable, fn: Callable, inputs, **options) -> None:
    """`check` (torch's gradcheck or gradgradcheck) in fast mode; the slow mode unless fast mode passed and left
    the inputs as they were."""
    rng = torch.get_rng_state()
    snapshots = snapshot_inputs(inputs if isinstance(inputs, (tuple, list)) else (inputs,))
    try:
        with _planned(check, fn, inputs, options), fast_mode.failure_unexplained():
            check(fn, inputs, **dict(options, atol=options["atol"] / FAST_TIGHTER,
                                     rtol=options["rtol"] / FAST_TIGHTER, fast_mode=True))
    except Exception:  # noqa: BLE001 - whatever fast mode met, the slow mode meets again and explains
        pass
    else:
        if all(_same_values(tensor, saved) for tensor, saved in snapshots):
            return
    for tensor, saved in snapshots:  # an answer that changed its inputs in place: the slow mode starts afresh
        if not _same_values(tensor, saved):
            with torch.no_grad():
                if tensor.shape == saved.shape and tensor.dtype == saved.dtype:
                    tensor.copy_(saved)
                else:
                    tensor.data = saved.clone()
    torch.set_rng_state(rng)
    with _planned(check, fn, inputs, options, True):
        check(fn, inputs, **options)


# Grading, fast mode's requests to the learner's process go as two plans (engine/sandbox/plans.py: its calls, then
# its backward passes), and torch's gradcheck, run as ever, takes its replies from them: the options below are the
# ones whose requests the plans predict (any other request goes live).
_PLANNED_OPTIONS = {"eps", "atol", "rtol", "raise_exception", "check_undefined_grad", "nondet_tol"}


def _planned(check: Callable, fn: Callable, inputs, options: dict, slow: bool = False):
    link = shared.learner()
    plan = getattr(link, "slow_gradcheck_plan" if slow else "gradcheck_plan", None)
    if check is not _gradcheck or plan is None or not set(options) <= _PLANNED_OPTIONS:
        return contextlib.nullcontext()
    return plan(check, fn, inputs, options) if slow else plan(fn, inputs, options)


def _same_values(tensor: torch.Tensor, saved: torch.Tensor) -> bool:
    return (tensor.shape == saved.shape and tensor.dtype == saved.dtype
            and bool(torch.equal(tensor.detach(), saved) or torch.allclose(tensor.detach(), saved, rtol=0, atol=0,
                                                                          equal_nan=True)))


def gradcheck(fn: Callable, inputs: tuple, what: str, code: str = "wrong-derivative", hint: str = "",
              names: Sequence[str] = (), reference: Callable | None = None, **kwargs) -> None:
    """float64 finite-difference check of `fn`'s backward, with plain feedback (`names`: `fn`'s inputs, in order).
    With `reference` (the same function in torch ops, in the judge), backward is also compared with the judge's own
    derivative on a random grad_output (`common/vjp.py`): finite differences are not the only evidence."""
    try:
        with explained(what, _gradcheck_rules(code, hint, names)):
            _fast_then_slow(_gradcheck, fn, inputs, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, **kwargs)
    except Mistake as mistake:
        blame_float32_forward(mistake, code, fn, inputs, what, reference)   # finite differences of float32 lie
        raise
    if reference is not None:
        from autograder.checks.common.vjp import require_vjp

        require_vjp(fn, inputs, reference, what, code, hint, names)


def gradgradcheck(fn: Callable, inputs: tuple, what: str, code: str = "not-twice-differentiable",
                  hint: str = "", reference: Callable | None = None) -> None:
    """float64 finite-difference check of second derivatives; with `reference`, also the judge's own second
    derivative on random directions (`common/vjp.py`)."""
    rules = (NOT_IMPLEMENTED, Rule(code, None, "{what}: second derivatives are wrong or unavailable ({line}). "
                                   + literal(hint), types=(RuntimeError,)))
    with explained(what, rules):
        try:
            _fast_then_slow(_gradgradcheck, fn, inputs, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True)
        except RuntimeError:   # a float32 backward is the first derivative's rule: judged at a step float32 takes
            if not backward_in_float32(fn, inputs):
                raise
            _gradgradcheck(fn, inputs, eps=1e-3, atol=1e-3, rtol=1e-2, raise_exception=True)
    if reference is not None:
        from autograder.checks.common.vjp import require_second_vjp

        with explained(what, rules):
            require_second_vjp(fn, inputs, reference, what, code, hint)


def each(cases, check: Callable) -> None:
    """`for case in cases: check(case)`: a table of cases, each judged on its own (`check` builds its own inputs
    from the case); the verdict is the first failing case's."""
    for case in cases:
        check(case)


def backward_grads(output, inputs: Sequence[torch.Tensor], grad_output=None, what: str = "backward",
                   names: Sequence[str] = ()):
    """Gradients of `output` (weighted by `grad_output`) with respect to `inputs`, via autograd (`names`: the
    inputs of the Function's forward, for the feedback)."""
    grad_output = torch.ones_like(output) if grad_output is None else shared_grad_output.as_sent(grad_output)
    snapshots = snapshot_inputs(inputs)
    with explained(what, engine_rules(names)):
        grads = torch.autograd.grad(output, inputs, grad_output, allow_unused=True)
    require_inputs_unchanged(snapshots, what)
    return grads
