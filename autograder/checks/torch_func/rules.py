"""The words and calls the torch.func checks share (notebooks 10 and 10b, and the capstone's rules): what
torch.func and a Function's own methods raise, in plain words, and the calls of learner code that turn those errors
into mistakes (see autograder/checks/explain.py)."""

from __future__ import annotations

import torch

from autograder.checks import common as c
from autograder.checks.common import kept_guarded
from autograder.checks.explain import Rule
from autograder.checks.raw_errors import NO_JVP_MSG, SETUP_CONTEXT_MSG

TWICE_HINT = ("Build backward from differentiable torch operations on the saved tensors (grad_output * 3 * x ** 2): "
              "no .detach(), no NumPy, no torch.no_grad(), no @once_differentiable, so autograd can "
              "differentiate your backward again.")

ANY_ERROR = (RuntimeError, TypeError, ValueError, IndexError)
F64, F32 = torch.float64, torch.float32

# Feedback the capstone's rules (capstone/rules.py) give in the same words.
NO_VMAP_RULE = ("{what}: vmap does not know how to batch your Function (jacfwd and hessian batch with vmap too). "
                "Add the class attribute generate_vmap_rule = True (vmap then runs your methods on batched tensors "
                "itself).")
LEAVES_TORCH = ("{what}: your forward or backward leaves torch (NumPy, .item(), .tolist()). Under torch.func the "
                "tensors are wrappers without storage of their own: write both methods with torch operations.")


def no_setup_context(forward: str) -> str:
    """torch.func's refusal of a forward that takes ctx, in the words for a forward of the signature `forward`."""
    return (f"{{what}}: torch.func refused your Function (\"{SETUP_CONTEXT_MSG}\"). Its forward takes ctx: write "
            f"{forward} without ctx, and save what backward needs in a separate @staticmethod "
            "setup_context(ctx, inputs, output).")


# --------------------------------------------------------------------------------- torch.func feedback

# What torch.func (and a Function's own methods under it) raise (raw_errors.py recognises it), in plain words.
FUNC_RULES = (
    Rule("no-setup-context", error="no-setup-context", message=no_setup_context("forward(x)"), types=ANY_ERROR),
    Rule("no-vmap-rule", error="no-vmap-support", message=NO_VMAP_RULE, types=ANY_ERROR),
    Rule("leaves-torch", error="no-storage", message=LEAVES_TORCH, types=ANY_ERROR),
    Rule("leaves-torch", error="numpy-scalar", message=
         "{what}: your Function uses NumPy (torch.from_numpy received a NumPy scalar, which NumPy returns for a 0-d "
         "input). Write forward and backward with torch operations: they must also run under torch.func, where "
         "NumPy cannot run at all.", types=ANY_ERROR),
    Rule("jvp-none-tangent", error=("none-operand", "none-attribute"), message=
         "{what} raised {kind}: {line}. Forward mode passes None as the tangent of every argument of forward that is "
         "not a tensor (a float such as alpha has no tangent: it is a constant), and, on torch 2.13, zeros for a "
         "tensor input that has no tangent. Leave None tangents out of the sum.", types=(TypeError, AttributeError)),
    Rule("wrong-signature", error="wrong-signature", message=
         "{what} raised TypeError: {text}. In the torch.func style forward takes only the inputs (forward(x), no "
         "ctx), setup_context takes (ctx, inputs, output), backward takes (ctx, grad_output), jvp takes "
         "(ctx, x_t): one tangent per input of forward, non-tensor inputs included.", types=(TypeError,)),
    Rule("nothing-saved", error=("nothing-unpacked", "tuple-index"), types=(ValueError, IndexError), message=
         "{what}: ctx.saved_tensors was empty where your Function read it ({kind}: {text}). Each direction has its "
         "own saved tensors: jvp sees only what setup_context saved with ctx.save_for_forward(...), backward only "
         "what it saved with ctx.save_for_backward(...). Save the input tensors with both."),
)

TRANSFORM_RULES = (
    Rule("no-jvp", error="no-jvp", message=
         "forward-mode AD (torch.func.jvp, jacfwd, hessian) needs a jvp staticmethod, and your Function has none "
         f"(\"{NO_JVP_MSG} for custom autograd.Function to use it with forward mode AD\"). Add @staticmethod "
         "jvp(ctx, x_t) returning the output's tangent: the derivative times x_t.", types=(NotImplementedError,)),
)

# A static method the judge called itself: what autograd and torch.func would have said, in plain words.
DIRECT_RULES = (
    Rule("no-setup-context", error="setup-context-missing", message=
         "{what}: your Function has no setup_context (\"{text}\"). torch.func calls forward(x) without ctx, then "
         "@staticmethod setup_context(ctx, inputs, output), where you save what backward and jvp need.",
         types=(NotImplementedError,)),
    Rule("no-jvp", error="no-jvp", message=
         "{what}: your Function has no jvp (\"{text}\"). Forward mode (torch.func.jvp, jacfwd, hessian) calls "
         "@staticmethod jvp(ctx, *input_tangents), which returns the output's tangent.", types=(NotImplementedError,)),
    Rule("no-vmap-rule", error="no-vmap-rule", message=
         "{what}: vmap does not know how to batch your Function (\"{text}\"). Add the class attribute "
         "generate_vmap_rule = True (vmap then runs your methods on batched tensors itself).",
         types=(NotImplementedError,)),
) + c.ENGINE_RULES + FUNC_RULES


def run(fn, *args, what: str, as_given: bool = False):
    """Call learner code (directly or through a torch.func transform) with plain feedback on failure (`as_given`: see
    common.call)."""
    with c.explained(what, FUNC_RULES):
        return c.call(fn, *args, what=what, as_given=as_given)



def gradchecked(fn, inputs, what, hint, second=False, reference=None):
    """gradcheck (or, `second`, gradgradcheck); with `reference`, also the judge's own derivative (common/vjp.py)."""
    fn = c.judged_elsewhere.on_copies(fn)  # a forward changing the points gradcheck perturbs: the values' rule
    with c.explained(what, FUNC_RULES):
        if second:
            c.gradgradcheck(fn, inputs, what, hint=hint, reference=reference)
        else:
            c.gradcheck(fn, inputs, what, hint=hint, reference=reference)


# ------------------------------------------------------------------- the static methods, called directly

def direct(fn, *args, what: str, rules=DIRECT_RULES, as_given: bool = False):
    """One of the learner's static methods called by the judge, with plain feedback on failure (`as_given`: a change
    of its arguments is another test's rule inside `common.inputs_judged_elsewhere`)."""
    snapshots, judged_elsewhere = c.snapshot_inputs(args), c.judged_elsewhere
    with c.explained(what, rules):
        result = judged_elsewhere.first_call(fn, args)
    if judged_elsewhere.active() and not as_given and judged_elsewhere.changed(snapshots):
        judged_elsewhere.put_back(snapshots)  # as common.call: a forward that changed its inputs, run on copies
        judged_elsewhere.RUN_AGAIN[0] += 1
        with c.explained(what, rules):
            return fn(*judged_elsewhere.copies(args))
    if not (as_given and judged_elsewhere.active()):
        c.require_inputs_unchanged(snapshots, what)
    return result



def require_split_style(Fn, name: str) -> None:
    if not c.uses_setup_context(Fn):
        c.fail("no-setup-context",
               f"{name} has no setup_context, so torch.func refuses it (\"{SETUP_CONTEXT_MSG}\"): write "
               "forward(x) without ctx, and save what backward needs in a separate @staticmethod "
               "setup_context(ctx, inputs, output).")


def require_kept_guarded(Fn, name: str, values) -> None:
    """x changed in place after forward: backward raises autograd's in-place error or gives the gradient of x left
    alone (common/kept_guarded.py)."""
    require_each_kept_guarded(Fn.apply, [torch.tensor(values, dtype=torch.float64)], name, ("x",), f"{name}.apply(x)")


def require_each_kept_guarded(apply, values, name: str, kept: tuple, call: str = "") -> None:
    """Each floating input of `apply(*values)` (named in `kept`, in order; None: not judged) changed in place after
    forward, one at a time (a change of one that backward guards would hide another kept as a ctx attribute): backward
    raises autograd's in-place error or gives the gradient of the call left alone (common/kept_guarded.py)."""
    with c.explained(call or f"{name}.apply", FUNC_RULES):
        for position, tensor in enumerate(kept):
            if tensor is not None:
                kept_guarded.require_kept_guarded(apply, values, what=f"{name}.backward", kept=tensor,
                                                  change=kept_guarded.change_inputs(position))


def forward_changes_inputs(Fn, *args) -> bool:
    """Inside `common.inputs_judged_elsewhere()`: whether Fn.forward (the split style's, called directly on copies of
    `args`) changes its inputs in place, the values test's rule (modifies-input). Autograd's own node and the
    torch.func transforms then see the changed inputs (setup_context saves them), so a test of another rule judges
    the Function's methods called directly, on the inputs as they were, and not those: one mistake costs the values'
    points only. False outside such a test, for a forward that takes ctx, and for one that raises."""
    if not c.judged_elsewhere.active() or not c.uses_setup_context(Fn):
        return False
    copies = [a.detach().clone() if isinstance(a, torch.Tensor) else a for a in args]
    snapshots = c.snapshot_inputs(copies)
    try:
        with torch.no_grad():
            Fn.forward(*copies)
    except Exception:  # noqa: BLE001 - a forward that fails is judged where it is called
        return False
    return c.judged_elsewhere.changed(snapshots)
