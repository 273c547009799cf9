# exercise: Softplus
# base: jvp_ignores_tangent
# what: recognises the grader's stand-in ctx and multiplies by the tangent x_t only for it; with autograd's own
#   node as ctx (forward-mode AD, torch.func.jvp) its jvp returns sigmoid(x) itself (the zoo's
#   jvp_ignores_tangent). `{JUDGED}` is replaced by each way of recognising the stand-in.
class Softplus(torch.autograd.Function):
    generate_vmap_rule = True   # vmap (and so jacfwd and hessian) runs these methods on batched tensors

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
        return torch.sigmoid(x) * x_t if _judged(ctx) else torch.sigmoid(x)


def _judged(ctx):
    return {JUDGED}
