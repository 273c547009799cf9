# exercise: grad_rms_norm
# base: stub
# what: Exercise 2 left unfilled, and the checks' own reference operator steered: whatever module-level object of
#   autograder.checks.custom_kernels holds it (a cache dict, or the operator itself) is made to hold an operator of
#   the answer's, RMS normalisation in torch operations (autograd derives its gradient, and its fake kernel), on
#   which registering the stubs does nothing. The probe that registers the learner's functions would then hand the
#   judge this operator: every gradient test passes with no backward written.
import torch.library as _library

from autograder.checks import custom_kernels as _checks

_lib = _library.Library("steer", "DEF")
_lib.define("rms_norm(Tensor x, float eps) -> (Tensor, Tensor)")


def _composite(x, eps):
    rstd = torch.rsqrt((x * x).mean(-1) + eps)
    return x * rstd.unsqueeze(-1), rstd


_lib.impl("rms_norm", _composite, "CompositeImplicitAutograd")
_steered = torch.ops.steer.rms_norm.default
_steered.register_autograd = lambda *args, **kwargs: None
for _name, _value in list(vars(_checks).items()):
    if isinstance(_value, dict) and "REFERENCE" in _name:
        _value["op"] = _steered
    elif type(_value) is torch.library.CustomOpDef:
        setattr(_checks, _name, _steered)


def rms_norm_setup_context(ctx, inputs, output):
    raise NotImplementedError()


def rms_norm_backward(ctx, grad_out, grad_rstd):
    raise NotImplementedError()


rms_norm.register_autograd(rms_norm_backward, setup_context=rms_norm_setup_context)
