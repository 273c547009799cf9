# mistake: saves y but returns a different tensor (a clone), so the saved tensor is not the output
# feedback: not the output
# code: saves-copy
# rule: saves_output
# fails: saves_output
# family: output-change-unnoticed
# score: 3/5
class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.exp(x)
        ctx.save_for_backward(y)
        return y.clone()

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        return grad_output * y
