# mistake: writes the sigmoid in backward as 1 / (1 + exp(-x)) and its derivative with exp(-x): inf / inf = nan for very negative x
# feedback: torch.sigmoid
# code: unstable
# rule: derivative
# fails: values
# score: 4/5
class RecomputeSiLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * torch.sigmoid(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        e = torch.exp(-x)
        s = 1 / (1 + e)
        return grad_output * (s + x * e / (1 + e) ** 2)
