# mistake: backward returns grad_output * x (the log of the output) instead of grad_output * y
# feedback: multiply grad_output by the saved output
# code: wrong-derivative
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
        return grad_output * torch.log(y)
