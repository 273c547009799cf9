# mistake: keeps the output as a plain attribute ctx.y instead of ctx.save_for_backward
# feedback: not a plain attribute
# code: not-saved-for-backward
# rule: saves_output
# fails: saves_output
# score: 4/5
class Tanh(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.tanh(x)
        ctx.y = y
        return y

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * (1 - ctx.y ** 2)
