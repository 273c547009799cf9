# mistake: applies exp to grad_output instead of multiplying grad_output by the saved output
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
        return torch.exp(grad_output)
