# mistake: keeps x in a list on ctx (ctx.saved = [x])
# feedback: save_for_backward
# code: not-saved-for-backward
# rule: clipped
# fails: backward
# score: 4/6
class SignSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.saved = [x]
        return torch.sign(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved
        return grad_output * (x.abs() <= 1)
