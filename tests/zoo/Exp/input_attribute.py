# mistake: keeps the input as a plain attribute ctx.x = x and recomputes exp in backward
# feedback: save_for_backward
# code: not-saved-for-backward
# rule: saves_output
# fails: saves_output inplace_input
# family: uses-input
# score: 2/5
class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.x = x
        return torch.exp(x)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * torch.exp(ctx.x)
