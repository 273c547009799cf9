# mistake: writes the sigmoid as exp(x) / (1 + exp(x)), which gives nan for large x
# feedback: large
# code: unstable
# rule: derivative
# fails: values
# score: 4/5
class RecomputeSiLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        e = torch.exp(x)
        return x * e / (1 + e)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        e = torch.exp(x)
        s = e / (1 + e)
        return grad_output * (s + x * s * (1 - s))
