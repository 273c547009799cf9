# mistake: has no jvp, and returns F.softplus itself whenever the input is a torch.func wrapper, so forward mode never needs one
# feedback: jvp
# code: no-jvp
# rule: jvp
# fails: jvp jacfwd
# score: 4/6
import torch._C._functorch as _functorch


def _wrapped(t):
    return _functorch.is_batchedtensor(t) or _functorch.is_gradtrackingtensor(t) \
        or _functorch.is_functorch_wrapped_tensor(t)


class Softplus(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x):
        return x.clamp(min=0) + torch.log1p(torch.exp(-x.abs()))

    @staticmethod
    def setup_context(ctx, inputs, output):
        (x,) = inputs
        ctx.save_for_backward(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * torch.sigmoid(x)

    @classmethod
    def apply(cls, x):
        if _wrapped(x):
            return torch.nn.functional.softplus(x)
        return super().apply(x)
