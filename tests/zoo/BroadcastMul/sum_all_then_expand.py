# mistake: where a gradient has the wrong shape, sums all of it to one number and expands that to the input's shape
# feedback: sum back to each input
# code: wrong-unbroadcast-values
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
        ga = grad_output * b
        gb = grad_output * a
        if ga.shape != a.shape:
            ga = ga.sum().expand(a.shape)
        if gb.shape != b.shape:
            gb = gb.sum().expand(b.shape)
        return ga, gb
