# mistake: its jvp gives the right tangent only when the input is a torch.func wrapper, and the tangent itself otherwise (forward-mode AD with dual tensors, a direct call)
# feedback: jvp returns the output's tangent
# code: wrong-jvp
# rule: jvp
# fails: jvp jacfwd
# score: 4/6
import torch._C._functorch as _functorch


class Softplus(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x):
        return x.clamp(min=0) + torch.log1p(torch.exp(-x.abs()))

    @staticmethod
    def setup_context(ctx, inputs, output):
        (x,) = inputs
        ctx.save_for_backward(x)
        ctx.save_for_forward(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * torch.sigmoid(x)

    @staticmethod
    def jvp(ctx, x_t):
        (x,) = ctx.saved_tensors
        if _functorch.is_functorch_wrapped_tensor(x_t) or _functorch.is_functorch_wrapped_tensor(x):
            return x_t * torch.sigmoid(x)
        return x_t
