# mistake: the mask (x > -1) & (x <= 1): -1 exactly is left outside
# feedback: x = -1.0
# code: wrong-clip-mask
# rule: boundary
# fails: boundary
# score: 5/6
class SignSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.sign(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * ((x > -1) & (x <= 1))
