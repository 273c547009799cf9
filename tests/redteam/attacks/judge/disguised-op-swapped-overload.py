# exercise: numpy_sin
# base: no_register_fake
# what: a real custom operator course::numpy_sin without a fake kernel (the zoo's no_register_fake), whose
#   object's own `_opoverload` is then pointed at PyTorch's sin: every call of the object, opcheck, compile and
#   export then see aten.sin, which has a fake kernel, and never the operator the exercise is about.
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
numpy_sin._opoverload = torch.ops.aten.sin.default
