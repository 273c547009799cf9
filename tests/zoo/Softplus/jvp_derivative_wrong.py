# mistake: jvp multiplies the tangent by the output (softplus) instead of its derivative
# feedback: times the tangent
# code: wrong-jacobian|wrong-jvp
# rule: jvp
# fails: jacfwd jvp
# score: 4/6
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
        return x_t * (x.clamp(min=0) + torch.log1p(torch.exp(-x.abs())))
