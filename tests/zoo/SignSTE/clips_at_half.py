# mistake: clips at |x| <= 0.5 instead of |x| <= 1
# feedback: inside [-1, 1]
# code: wrong-clip-mask
# rule: clipped
# fails: backward
# score: 4/6
class SignSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.sign(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * (x.abs() <= 0.5)
