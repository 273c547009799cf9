# mistake: backward and jvp use sigmoid(-x) = 1 / (1 + exp(x)), a sign slip in the derivative
# feedback: sigmoid(x)
# code: wrong-derivative|wrong-jvp|wrong-jacobian
# rule: derivative jvp
# fails: values gradcheck jvp jacfwd
# score: 2/6
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
        return grad_output * torch.sigmoid(-x)

    @staticmethod
    def jvp(ctx, x_t):
        (x,) = ctx.saved_tensors
        return x_t * torch.sigmoid(-x)
