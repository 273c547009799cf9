# mistake: jvp takes the sigmoid of the tangent (x_t * sigmoid(x_t)) instead of the saved x
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
        ctx.save_for_forward(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * torch.sigmoid(x)

    @staticmethod
    def jvp(ctx, x_t):
        return x_t * torch.sigmoid(x_t)
