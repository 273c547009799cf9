# mistake: backward asks autograd for the derivative of torch.round (zero), instead of passing grad_output through
# feedback: straight-through
# code: zero-gradient
# rule: straight_through
# fails: backward
# score: 3/5
class RoundSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.round(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        with torch.enable_grad():
            x = x.detach().requires_grad_(True)
            (grad,) = torch.autograd.grad(torch.round(x), x, grad_output)
        return grad
