# mistake: backward returns the local derivative without multiplying by grad_output
# feedback: grad_output
# code: wrong-derivative|ignores-grad-output
# rule: derivative
# fails: gradcheck graph
# score: 3/5
class RecomputeSiLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * torch.sigmoid(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        s = torch.sigmoid(x)
        return s + x * s * (1 - s)
