# mistake: backward multiplies by sigmoid of a detached x (plus 0 * x), so its gradient has a history whose derivative is 0
# feedback: sigmoid(x) * (1 - sigmoid(x))
# code: not-twice-differentiable
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
        return grad_output * torch.sigmoid(x.detach()) + 0 * x   # a history, but not the derivative of sigmoid

    @staticmethod
    def jvp(ctx, x_t):
        (x,) = ctx.saved_tensors
        return x_t * torch.sigmoid(x)
