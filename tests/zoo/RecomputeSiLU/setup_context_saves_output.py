# mistake: the split spelling, whose setup_context saves the output next to x (to reuse it in backward)
# feedback: the output
# code: saves-too-much
# rule: saved
# fails: saved
# score: 3/5
class RecomputeSiLU(torch.autograd.Function):
    @staticmethod
    def forward(x):
        return x * torch.sigmoid(x)

    @staticmethod
    def setup_context(ctx, inputs, output):
        (x,) = inputs
        ctx.save_for_backward(x, output)

    @staticmethod
    def backward(ctx, grad_output):
        x, y = ctx.saved_tensors
        s = torch.sigmoid(x)
        return grad_output * (s + y * (1 - s))
