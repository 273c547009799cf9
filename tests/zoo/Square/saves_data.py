# mistake: saves x.data, whose version counter is not x's, so an in-place change of x goes unnoticed
# feedback: not a copy
# code: not-saved-for-backward
# rule: saved
# fails: saved
# score: 2/3
class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x.data)
        return x * x

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 2 * x
