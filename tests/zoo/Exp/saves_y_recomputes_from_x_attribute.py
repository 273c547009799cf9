# mistake: saves y, but backward recomputes exp from a plain attribute ctx.x: a change of the input changes the gradient
# feedback: not the (since changed) input x
# code: uses-input
# rule: saves_output
# fails: inplace_input
# score: 4/5
class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.exp(x)
        ctx.save_for_backward(y)
        ctx.x = x
        return y

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * torch.exp(ctx.x)
