# mistake: the derivative written as 1 / (1 + exp(-x)): finite to first order, but differentiated again (hessian) it is inf / inf = NaN at x = -1e4
# feedback: inf or NaN
# code: derivative-overflow
# rule: double_backward
# fails: hessian
# score: 5/6
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
        return grad_output / (1 + torch.exp(-x))

    @staticmethod
    def jvp(ctx, x_t):
        (x,) = ctx.saved_tensors
        return x_t / (1 + torch.exp(-x))
