# mistake: saves y with ctx.save_for_backward, but backward reads a plain attribute ctx.y: a change of the output goes unnoticed
# feedback: backward read the changed value
# code: output-change-unnoticed
# rule: protected
# fails: inplace_output
# score: 4/5
class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.exp(x)
        ctx.save_for_backward(y)
        ctx.y = y
        return y

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.y
