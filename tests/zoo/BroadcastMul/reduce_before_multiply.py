# mistake: un-broadcasts grad_output first and multiplies by the other input afterwards (sum(g) * b is not sum(g * b))
# feedback: the gradient of b has shape
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
        return unbroadcast(grad_output, a.shape) * b, unbroadcast(grad_output, b.shape) * a
