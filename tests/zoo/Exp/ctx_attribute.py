# mistake: keeps the output as a plain attribute ctx.y = y (no version check, reference cycle): backward reads a changed output silently
# feedback: save_for_backward
# code: not-saved-for-backward|output-change-unnoticed
# rule: saves_output protected
# fails: saves_output inplace_output
# score: 2/5
class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.exp(x)
        ctx.y = y
        return y

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.y
