# mistake: reuses grad_output for the last gradient in place (grad_output.mul_(a)), thinking nothing reads it afterwards: it belongs to autograd (after .sum() it is one number broadcast)
# feedback: in place
# code: inplace-grad-output
# rule: derivative
# fails: values
# score: 3/4
class BroadcastMul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        grad_a = unbroadcast(grad_output * b, a.shape)
        return grad_a, unbroadcast(grad_output.mul_(a), b.shape)
