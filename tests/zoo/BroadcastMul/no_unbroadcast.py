# mistake: returns gradients of the output's shape (no un-broadcast); autograd hides it, a direct call does not
# feedback: sum over the broadcast dimensions
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
        return grad_output * b, grad_output * a
