# mistake: generate_vmap_rule = True left out, and jvp returns sigmoid(x) without multiplying by the tangent
# feedback: ignores the tangent
# code: no-vmap-rule|jvp-ignores-tangent
# rule: vmap jvp
# fails: vmap jvp jacfwd
# score: 3/6
class Softplus(torch.autograd.Function):
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
        return torch.sigmoid(x)
