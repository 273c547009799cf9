# mistake: multiplies grad_output by y in place
# feedback: in place
# code: inplace-grad-output
# rule: derivative
# fails: values
# score: 4/5
class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.exp(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        return grad_output.mul_(y)
