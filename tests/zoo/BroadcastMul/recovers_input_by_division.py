# mistake: saves the output and recovers the other input as out / a (out / b): nan where an input is 0
# feedback: is wrong
# code: wrong-derivative
# rule: derivative
# fails: values
# score: 3/4
class BroadcastMul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        out = a * b
        ctx.save_for_backward(a, b, out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        a, b, out = ctx.saved_tensors
        return unbroadcast(grad_output * out / a, a.shape), unbroadcast(grad_output * out / b, b.shape)
