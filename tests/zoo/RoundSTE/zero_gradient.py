# mistake: backward returns round's true derivative (zero), so no gradient passes straight through
# feedback: true derivative
# code: zero-gradient
# rule: straight_through
# fails: backward
# score: 3/5
class RoundSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return torch.round(x)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * 0
