# mistake: saves a with ctx.save_for_backward but keeps b as a plain ctx attribute: a change of b alone goes unnoticed
# feedback: changing b in place after forward
# code: not-saved-for-backward
# rule: derivative
# fails: values
# score: 3/4
class BroadcastMul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a)
        ctx.b = b
        return a * b

    @staticmethod
    def backward(ctx, grad_output):
        (a,) = ctx.saved_tensors
        b = ctx.b
        return unbroadcast(grad_output * b, a.shape), unbroadcast(grad_output * a, b.shape)
