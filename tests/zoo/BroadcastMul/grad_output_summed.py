# mistake: multiplies by grad_output.sum() instead of grad_output element by element
# feedback: grad_output * b
# code: wrong-derivative
# rule: derivative
# fails: values gradcheck
# score: 2/4
class BroadcastMul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        g = grad_output.sum()
        return unbroadcast(g * b.expand(grad_output.shape), a.shape), unbroadcast(g * a.expand(grad_output.shape), b.shape)
