# mistake: saves the output y and recovers x as y.sqrt(): the sign of x is lost, and x itself is not guarded
# feedback: 2x, times grad_output
# code: wrong-derivative|not-saved-for-backward
# rule: derivative saved
# fails: values saved
# score: 1/3
class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = x * x
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        return grad_output * 2 * y.sqrt()
