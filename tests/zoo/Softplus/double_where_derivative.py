# mistake: backward picks 1 / (1 + exp(-x)) or exp(x) / (1 + exp(x)) with torch.where: the branch not taken is inf / inf at x = 1e4, and its NaN reaches the second derivative
# feedback: inf or NaN
# code: derivative-overflow
# rule: double_backward
# fails: hessian
# score: 5/6
class Softplus(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x):
        return torch.logaddexp(torch.zeros_like(x), x)

    @staticmethod
    def setup_context(ctx, inputs, output):
        (x,) = inputs
        ctx.save_for_backward(x)
        ctx.save_for_forward(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        s = torch.where(x >= 0, 1 / (1 + torch.exp(-x)), torch.exp(x) / (1 + torch.exp(x)))
        return grad_output * s

    @staticmethod
    def jvp(ctx, x_t):
        (x,) = ctx.saved_tensors
        return torch.sigmoid(x) * x_t
