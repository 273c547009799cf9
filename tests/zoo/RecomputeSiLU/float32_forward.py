# mistake: computes forward in float32 and casts back
# feedback: dtype
# code: wrong-forward|float32-precision
# rule: derivative
# fails: values gradcheck
# score: 3/5
class RecomputeSiLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        xf = x.float()
        return (xf * torch.sigmoid(xf)).to(x.dtype)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        s = torch.sigmoid(x)
        return grad_output * (s + x * s * (1 - s))
