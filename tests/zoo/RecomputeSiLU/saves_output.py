# mistake: saves the output next to x to reuse it in backward (s + y * (1 - s)), keeping a second tensor of x's size
# feedback: the output
# code: saves-too-much
# rule: saved
# fails: saved
# score: 3/5
class RecomputeSiLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = x * torch.sigmoid(x)
        ctx.save_for_backward(x, y)
        return y

    @staticmethod
    def backward(ctx, grad_output):
        x, y = ctx.saved_tensors
        s = torch.sigmoid(x)
        return grad_output * (s + y * (1 - s))
