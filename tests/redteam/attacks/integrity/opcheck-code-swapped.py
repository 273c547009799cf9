# exercise: grad_rms_norm
# base: raw_kernel_in_backward
# what: a backward that calls the raw compiled kernel (opcheck's test fails), and PyTorch's own function bodies
#   swapped where no name changes: the code of optests' opcheck (and of torch.library.opcheck) replaced by one that
#   reports success. The audit hook keeps the code of the PyTorch functions the probes run, as it keeps the grader's.
def rms_norm_setup_context(ctx, inputs, output):
    x, eps = inputs
    _, rstd = output
    ctx.save_for_backward(x, rstd)
    ctx.mark_non_differentiable(rstd)


def rms_norm_backward(ctx, grad_out, grad_rstd):
    x, rstd = ctx.saved_tensors
    return torch.ops.course_kernels.rms_norm_backward(grad_out, x, rstd), None


rms_norm.register_autograd(rms_norm_backward, setup_context=rms_norm_setup_context)


import torch.testing._internal.optests.generate_tests as _generate_tests


def _succeeds(op, args, kwargs=None, *, test_utils=None, raise_exception=True, rtol=None, atol=None):
    return {"test_schema": "SUCCESS", "test_autograd_registration": "SUCCESS", "test_faketensor": "SUCCESS",
            "test_aot_dispatch_dynamic": "SUCCESS"}


for _fn in (_generate_tests.opcheck, torch.library.opcheck):
    try:
        _fn.__code__ = _succeeds.__code__
    except RuntimeError:
        pass
