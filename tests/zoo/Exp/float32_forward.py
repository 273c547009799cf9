# mistake: computes exp in float32 and casts back (loses float64 precision)
# feedback: dtype
# code: wrong-forward
# rule: derivative
# fails: values
# score: 4/5
class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.exp(x.float()).to(x.dtype)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        return grad_output * y
