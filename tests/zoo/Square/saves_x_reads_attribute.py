# mistake: saves x with ctx.save_for_backward, but backward reads a plain attribute ctx.x, which nothing guards
# feedback: save_for_backward
# code: not-saved-for-backward
# rule: saved
# fails: saved
# score: 2/3
class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        ctx.x = x
        return x * x

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * 2 * ctx.x
