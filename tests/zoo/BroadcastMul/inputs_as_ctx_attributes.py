# mistake: keeps a and b as plain ctx attributes (ctx.a = a): an in-place change of an input after forward goes unnoticed
# feedback: changing a in place after forward
# code: not-saved-for-backward
# rule: derivative
# fails: values
# score: 3/4
class BroadcastMul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.a = a
        ctx.b = b
        return a * b

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.a, ctx.b
        return unbroadcast(grad_output * b, a.shape), unbroadcast(grad_output * a, b.shape)
