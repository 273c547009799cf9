# mistake: recomputes the sigmoid in half precision to be quick, then casts back
# feedback: wrong
# code: wrong-derivative
# rule: derivative
# fails: gradcheck values
# score: 3/5
class RecomputeSiLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * torch.sigmoid(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        s = torch.sigmoid(x.half()).to(x.dtype)
        return grad_output * (s + x * s * (1 - s))
