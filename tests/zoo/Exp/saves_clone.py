# mistake: saves a clone of the output, so an in-place change of the output goes unnoticed
# feedback: copy
# code: saves-copy
# rule: saves_output
# fails: saves_output
# score: 3/5
class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.exp(x)
        ctx.save_for_backward(y.clone())
        return y

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        return grad_output * y
