# exercise: numpy_sin
# base: no_register_fake
# what: notebook 11's numpy_sin without a fake kernel (opcheck's test fails: the zoo's no_register_fake), and
#   optests.opcheck, which torch.library.opcheck looks up at every call, replaced by one that reports success.
@torch.library.custom_op("course::numpy_sin", mutates_args=())
def numpy_sin(x: torch.Tensor) -> torch.Tensor:
    result = np.sin(x.numpy(force=True))
    return torch.from_numpy(np.asarray(result)).to(x.device)


def numpy_sin_setup_context(ctx, inputs, output):
    (x,) = inputs
    ctx.save_for_backward(x)


def numpy_sin_backward(ctx, grad_output):
    (x,) = ctx.saved_tensors
    return grad_output * torch.cos(x)


numpy_sin.register_autograd(numpy_sin_backward, setup_context=numpy_sin_setup_context)


import torch.testing._internal.optests as _optests

_optests.opcheck = lambda *args, **kwargs: {"test_schema": "SUCCESS", "test_autograd_registration": "SUCCESS",
                                            "test_faketensor": "SUCCESS", "test_aot_dispatch_dynamic": "SUCCESS"}
