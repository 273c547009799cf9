# mistake: saves y with ctx.save_for_backward, but backward reads a plain attribute ctx.y, which nothing guards
# feedback: did not raise
# code: output-change-unnoticed
# rule: saves_output
# fails: saves_output
# score: 4/5
class Tanh(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.tanh(x)
        ctx.save_for_backward(y)
        ctx.y = y
        return y

    @staticmethod
    def backward(ctx, grad_output):
        y = ctx.y
        return grad_output * (1 - y * y)
