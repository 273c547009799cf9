# mistake: saves y.data, which autograd's version counter does not follow
# feedback: save_for_backward
# code: saves-alias|output-change-unnoticed
# rule: saves_output protected
# fails: saves_output inplace_output
# score: 2/5
class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.exp(x)
        ctx.save_for_backward(y.data)
        return y

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        return grad_output * y
