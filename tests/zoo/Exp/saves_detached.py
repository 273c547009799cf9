# mistake: saves y.detach() instead of the output itself
# feedback: detach
# code: saves-alias
# rule: saves_output
# fails: saves_output
# score: 3/5
class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.exp(x)
        ctx.save_for_backward(y.detach())
        return y

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        return grad_output * y
