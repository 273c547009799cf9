# mistake: un-broadcasts by hand with .sum(0) when the gradient has more dims: misses widened size-1 dims and second leading dims
# feedback: the gradient of a has shape
# code: missing-unbroadcast
# rule: unbroadcast
# fails: shapes
# score: 2/4
class BroadcastMul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        ga, gb = grad_output * b, grad_output * a
        if ga.dim() > a.dim():
            ga = ga.sum(0)
        if gb.dim() > b.dim():
            gb = gb.sum(0)
        return ga, gb
