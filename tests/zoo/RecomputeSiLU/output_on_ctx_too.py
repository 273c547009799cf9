# mistake: saves x with save_for_backward and keeps the output on ctx as well "to save recomputing"
# feedback: ctx.y
# code: ctx-attribute
# rule: saved
# fails: saved
# score: 3/5
class RecomputeSiLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        y = x * torch.sigmoid(x)
        ctx.y = y
        return y

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        s = torch.sigmoid(x)
        return grad_output * (s + ctx.y * (1 - s))
