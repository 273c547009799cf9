# mistake: returns the local derivatives (b and a, broadcast) without multiplying by grad_output
# feedback: grad_output
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
        return (unbroadcast(b.expand(grad_output.shape), a.shape),
                unbroadcast(a.expand(grad_output.shape), b.shape))
