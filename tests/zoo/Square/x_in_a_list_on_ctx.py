# mistake: keeps x in a list on ctx (ctx.saved = [x]): an in-place change of x goes unnoticed
# feedback: save_for_backward
# code: not-saved-for-backward
# rule: saved
# fails: saved
# score: 2/3
class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.saved = [x]
        return x * x

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved
        return grad_output * 2 * x
