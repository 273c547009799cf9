# mistake: keeps x as a plain ctx attribute instead of ctx.save_for_backward
# feedback: save_for_backward
# code: not-saved-for-backward
# rule: saved
# fails: saved
# score: 2/3
class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.x = x
        return x * x

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * 2 * ctx.x
