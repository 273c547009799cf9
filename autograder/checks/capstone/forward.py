"""The capstone's forward-mode check (notebook 14): LogSumExp's own jvp, called by the judge after setup_context and
compared with torch.logsumexp's tangent, then read again under forward-mode AD itself (the probe `transformed`), and
gradcheck's forward-AD check on `ThroughMethods`, a Function of the judge's made of LogSumExp's own methods."""

from __future__ import annotations

import torch

from autograder.checks import behaviour
from autograder.checks import common as c
from autograder.checks.capstone.cases import FORWARD_EXAMPLE
from autograder.checks.capstone.rules import (F64, FORWARD_RULES, JVP_HINT, JVP_RULES, NAME, masked_input,
                                              torch_logsumexp_jvp, require_logsumexp, run, set_up_ctx, tolerance)
from autograder.checks.capstone.transforms import transform


# --------------------------------------------------------------------------------- forward mode, judged

class ThroughMethods(torch.autograd.Function):
    """A Function of the judge's made of LogSumExp's own static methods: forward, setup_context (with a stand-in
    ctx), backward and jvp, each called through the learner's proxies with tensors the judge holds. Forward-mode
    AD and gradcheck then run here, on those methods, and no transform runs on the learner's side."""

    @staticmethod
    def forward(LSE, x, dim, keepdim):
        return run(LSE.forward, x, dim, keepdim, what="LogSumExp.forward(x, dim, keepdim)", rules=FORWARD_RULES)

    @staticmethod
    def setup_context(ctx, inputs, output):
        LSE, x, dim, keepdim = inputs
        ctx.LSE, ctx.stand_in = LSE, behaviour.stand_in_ctx(NAME, (True, False, False))
        with torch.no_grad():
            run(LSE.setup_context, ctx.stand_in, (x.detach(), dim, keepdim), output.detach(),
                what="LogSumExp.setup_context(ctx, inputs, output)", rules=FORWARD_RULES)

    @staticmethod
    def backward(ctx, grad_output):
        grads = run(ctx.LSE.backward, ctx.stand_in.forward_mode(False), grad_output,
                    what="LogSumExp.backward(ctx, grad_output)", rules=FORWARD_RULES)
        return None, grads[0], None, None

    @staticmethod
    def jvp(ctx, _, x_t, dim_t, keepdim_t):
        return _jvp(ctx.LSE, ctx.stand_in, x_t)


def _jvp(LSE, stand_in, x_t):
    """LogSumExp.jvp called as forward mode calls it (what setup_context saved for forward, None for dim and
    keepdim); a returned tuple is named for what it is."""
    what = "LogSumExp.jvp(ctx, x_t, None, None), called as forward mode calls it"
    with torch.no_grad():
        tangent = run(LSE.jvp, stand_in.forward_mode(), x_t, None, None, what=what, rules=JVP_RULES)
    stand_in.forward_mode(False)
    if isinstance(tangent, (tuple, list)):
        c.fail("jvp-arity", f"{what} returned {len(tangent)} values. jvp returns one tangent per output of forward "
                            "(LogSumExp has one output), not one value per input as backward does: return a single "
                            "tensor, no Nones.")
    if not isinstance(tangent, torch.Tensor):
        c.fail("not-a-tensor", f"{what} should return a tensor, got {type(tangent).__name__}.")
    return tangent


def _in_shape_of_output(expected, out):
    """torch.logsumexp's tangent in the shape of the answer's own output (which is the shapes test's): forward mode
    asks the tangent to have the output's shape."""
    return expected.reshape(out.shape) if expected.numel() == out.numel() else expected


def _check_own_jvp(LSE, x, dim, keepdim, t, rows=None) -> bool:
    """jvp called directly after setup_context, against torch.logsumexp's tangent (on `rows` of the output only,
    if given); a tangent that does not follow t is named as such. False where forward's output has another shape
    than torch.logsumexp's (the shapes test's) and jvp's tangent has the right one: forward-mode AD itself cannot
    run them together, so nothing more is asked of it here."""
    what = f"LogSumExp.jvp for x of shape {tuple(x.shape)} ({x.dtype}), dim={dim}, keepdim={keepdim}"
    out, ctx = set_up_ctx(LSE, x, dim, keepdim)
    tangent = _jvp(LSE, ctx, t)
    expected = _in_shape_of_output(torch_logsumexp_jvp(x, dim, keepdim, t)[1], out)
    reference_shape = torch_logsumexp_jvp(x, dim, keepdim, t)[1].shape
    if tuple(out.shape) != tuple(reference_shape) and tuple(tangent.shape) == tuple(reference_shape):
        # forward's output shape is wrong (the shapes test's) and this jvp gives torch.logsumexp's: judge its values
        c.require_close(tangent, expected.reshape(reference_shape), f"the output's tangent from {what}", "wrong-jvp",
                        JVP_HINT, rtol=tolerance(x)[0], atol=tolerance(x)[1])
        return False   # forward-mode AD itself refuses a tangent of another shape than the output's
    c.require_shape(tangent, out.shape, f"the output's tangent from {what}", "wrong-tangent-shape")
    if rows is not None:
        tangent, expected = tangent.reshape(rows.shape)[rows], expected.reshape(rows.shape)[rows]
    rtol, atol = tolerance(x)
    if not bool(torch.allclose(tangent, expected, rtol=rtol, atol=atol)):
        doubled = _jvp(LSE, ctx, 2 * t)
        doubled = doubled.reshape(rows.shape)[rows] if rows is not None else doubled
        if bool(torch.allclose(doubled, tangent, rtol=rtol, atol=atol)):
            c.fail("jvp-ignores-tangent",
                   f"{what}: the output's tangent is the same for the tangent x_t and for 2 * x_t, so your jvp "
                   "ignores the tangent it receives. The output's tangent is linear in x_t: "
                   "(exp(x - output) * x_t) summed over dim. " + JVP_HINT)
    c.require_close(tangent, expected, f"the output's tangent from {what}", "wrong-jvp", JVP_HINT,
                    rtol=rtol, atol=atol)
    # The same tangent under forward-mode AD itself, in the learner's process (LogSumExp.apply on a dual tensor):
    # there jvp's ctx is autograd's own node, which no answer can tell from real use.
    real_what = (f"forward-mode AD of LogSumExp.apply (x a dual tensor of shape {tuple(x.shape)}, {x.dtype}, "
                 f"dim={dim}, keepdim={keepdim})")
    real = transform(LSE, "forward AD", x, dim, keepdim, what=real_what, tangent=t)
    lead = (f"Called directly after your setup_context, your jvp gave the right tangent; but under {real_what}, "
            "where its ctx is autograd's own node, ")
    if real is None:
        c.fail("wrong-jvp", f"{lead}the output has no tangent: jvp must compute it from what forward saved, whatever "
                            "the ctx. " + JVP_HINT)
    expected = _in_shape_of_output(torch_logsumexp_jvp(x, dim, keepdim, t)[1], out)
    c.require_shape(real, out.shape, f"{lead}the output's tangent", "wrong-tangent-shape")
    if rows is not None:
        real, expected = real.reshape(rows.shape)[rows], expected.reshape(rows.shape)[rows]
    c.require_close(real, expected, f"{lead}the output's tangent", "wrong-jvp", JVP_HINT, rtol=rtol, atol=atol)
    return True


@c.inputs_judged_elsewhere()  # a forward that changes x in place: the values test's rule
def forward_mode(LSE, cases=FORWARD_EXAMPLE) -> None:
    """The Function's own jvp, judged here: called directly after setup_context with random tangents and compared
    with torch.logsumexp's (rows with masked entries too; a fully masked row's tangent is nan in
    torch.logsumexp and is not compared); then gradcheck's forward-AD check (check_forward_ad=True) on
    ThroughMethods, for the (float64) cases that ask for it."""
    require_logsumexp(LSE)
    def one_case(shape, dim, keepdim, dtype, with_gradcheck, seed) -> None:
        x = c.randn(*shape, seed=seed, requires_grad=False, dtype=dtype)
        t = c.randn(*shape, seed=seed + 100, requires_grad=False, dtype=dtype)
        if _check_own_jvp(LSE, x, dim, keepdim, t) and with_gradcheck:
            what = f"forward-mode gradcheck of LogSumExp (x of shape {shape}, dim={dim}, keepdim={keepdim})"
            with c.explained(what, FORWARD_RULES):
                c.gradcheck(lambda u: ThroughMethods.apply(LSE, u, dim, keepdim), (x.requires_grad_(True),), what,
                            code="wrong-jvp", hint=JVP_HINT, check_forward_ad=True, check_backward_ad=False,
                            check_undefined_grad=False)
    c.each(cases, lambda case: one_case(*case))
    if len(cases) > 2:   # the hidden breadth: masked rows
        x, kept = masked_input((3, 4), 1, F64, 970)
        t = c.randn(3, 4, seed=971, requires_grad=False)
        _check_own_jvp(LSE, x, 1, False, t, rows=kept)
