# mistake: saves a clone of x, so an in-place change of x goes unnoticed
# feedback: save_for_backward
# code: not-saved-for-backward
# rule: saved
# fails: saved
# score: 2/3
class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x.clone())
        return x * x

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 2 * x
