# exercise: grad_rms_norm
# base: stub
# what: Exercise 2 left unfilled, and the checks' reference operator course_check::rms_norm steered where no Python
#   name shows it: an Autograd kernel of the answer's registered for it in PyTorch's dispatcher (RMS normalisation
#   in torch operations, differentiated by autograd), so the learner's functions registered on it are never called
#   and every gradient test passes with no backward written. The probe compares the operator's dispatcher entry
#   with the one it had when the checks were imported, and refuses it.
import warnings

import torch.library as _library


def _composite(x, eps):
    rstd = torch.rsqrt((x * x).mean(-1) + eps)
    return x * rstd.unsqueeze(-1), rstd


with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    _lib = _library.Library("course_check", "IMPL")
    try:
        _lib.impl("rms_norm", _composite, "Autograd")
    except RuntimeError:
        pass


def rms_norm_setup_context(ctx, inputs, output):
    raise NotImplementedError()


def rms_norm_backward(ctx, grad_out, grad_rstd):
    raise NotImplementedError()


rms_norm.register_autograd(rms_norm_backward, setup_context=rms_norm_setup_context)
