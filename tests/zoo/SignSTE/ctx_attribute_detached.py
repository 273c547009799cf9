# mistake: keeps x.detach() as a ctx attribute (a view of x that autograd does not watch)
# feedback: save_for_backward
# code: not-saved-for-backward
# rule: clipped
# fails: backward
# score: 4/6
class SignSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.x = x.detach()
        return torch.sign(x)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * (ctx.x.abs() <= 1)
