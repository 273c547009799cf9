# mistake: keeps the output in a list on ctx (ctx.kept = [y]): no version check, and a reference cycle
# feedback: save_for_backward
# code: not-saved-for-backward|output-change-unnoticed
# rule: saves_output protected
# fails: saves_output inplace_output
# score: 2/5
class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.exp(x)
        ctx.kept = [y]
        return y

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.kept[0]
