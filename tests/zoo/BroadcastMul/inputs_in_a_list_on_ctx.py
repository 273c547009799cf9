# mistake: keeps [a, b] in a list on ctx instead of ctx.save_for_backward
# feedback: not in a list on ctx
# code: not-saved-for-backward
# rule: derivative
# fails: values
# score: 3/4
class BroadcastMul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.inputs = [a, b]
        return a * b

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.inputs
        return unbroadcast(grad_output * b, a.shape), unbroadcast(grad_output * a, b.shape)
