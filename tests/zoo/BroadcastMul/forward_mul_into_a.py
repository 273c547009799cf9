# mistake: multiplies a by b in place (a.mul_(b)) when the shapes allow it, overwriting the caller's a
# feedback: changed one of its inputs in place
# code: modifies-input|wrong-derivative
# rule: derivative
# fails: values gradcheck
# score: 2/4
class BroadcastMul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a.clone(), b)
        if torch.broadcast_shapes(a.shape, b.shape) == a.shape:
            return a.mul_(b)
        return a * b

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        return unbroadcast(grad_output * b, a.shape), unbroadcast(grad_output * a, b.shape)
