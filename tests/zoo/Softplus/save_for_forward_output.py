# mistake: setup_context saves the output for forward mode (ctx.save_for_forward(output)) and jvp reads it as x
# feedback: the derivative sigmoid(x) times the tangent
# code: wrong-jvp|wrong-jacobian
# rule: jvp
# fails: jvp jacfwd
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
        ctx.save_for_forward(output)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * torch.sigmoid(x)

    @staticmethod
    def jvp(ctx, x_t):
        (x,) = ctx.saved_tensors
        return x_t * torch.sigmoid(x)
