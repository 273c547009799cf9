# mistake: backward and jvp take the sigmoid of the saved output (softplus(x)) instead of the input x
# feedback: sigmoid(x)
# code: wrong-derivative|wrong-jvp|wrong-jacobian
# rule: derivative jvp
# fails: values gradcheck jvp jacfwd
# score: 2/6
class Softplus(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x):
        return x.clamp(min=0) + torch.log1p(torch.exp(-x.abs()))

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(output)
        ctx.save_for_forward(output)

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        return grad_output * torch.sigmoid(y)

    @staticmethod
    def jvp(ctx, x_t):
        (y,) = ctx.saved_tensors
        return x_t * torch.sigmoid(y)
