# mistake: returns sign's true derivative (zero everywhere), so no gradient passes straight through
# feedback: true derivative
# code: zero-gradient
# rule: clipped
# fails: backward
# score: 4/6
class SignSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.sign(x)

    @staticmethod
    def backward(ctx, grad_output):
        return torch.zeros_like(grad_output)
