# mistake: keeps the notebook-01 style, which torch.func refuses, and returns x ** 3 itself whenever the input is a torch.func wrapper, so the transforms never run the Function
# feedback: setup_context
# code: no-setup-context
# rule: transforms
# fails: vmap grad
# score: 3/5
import torch._C._functorch as _functorch


def _wrapped(t):
    return _functorch.is_batchedtensor(t) or _functorch.is_gradtrackingtensor(t) \
        or _functorch.is_functorch_wrapped_tensor(t)


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 3 * x ** 2

    @classmethod
    def apply(cls, x):
        if _wrapped(x):
            return x ** 3
        return super().apply(x)
