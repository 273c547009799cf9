# mistake: saves x, then writes x * sigmoid(x) into it through .data and returns a copy: the caller's x (and the saved x) changed
# feedback: in place
# code: modifies-input|wrong-derivative
# rule: derivative
# fails: values gradcheck graph
# score: 2/5
class RecomputeSiLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        s = torch.sigmoid(x)
        return x.data.mul_(s).clone()

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        s = torch.sigmoid(x)
        return grad_output * (s + x * s * (1 - s))
