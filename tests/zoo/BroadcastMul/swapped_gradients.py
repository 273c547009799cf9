# mistake: swaps the two gradients (grad_output * a for a, grad_output * b for b)
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
        return unbroadcast(grad_output * a, a.shape), unbroadcast(grad_output * b, b.shape)
