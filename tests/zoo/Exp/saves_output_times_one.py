# mistake: saves y * 1, a new tensor equal to the output, not the output itself
# feedback: not the output itself
# code: saves-copy
# rule: saves_output
# fails: saves_output
# score: 3/5
class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.exp(x)
        ctx.save_for_backward(y * 1)
        return y

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        return grad_output * y
