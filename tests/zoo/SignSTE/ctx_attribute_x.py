# mistake: keeps x as a plain ctx attribute (ctx.x = x) instead of ctx.save_for_backward
# feedback: save_for_backward
# code: not-saved-for-backward
# rule: clipped
# fails: backward
# score: 4/6
class SignSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.x = x
        return torch.sign(x)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * (ctx.x.abs() <= 1)
