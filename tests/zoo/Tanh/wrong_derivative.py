# mistake: uses 1 - y instead of 1 - y**2
# feedback: 1 - y * y
# code: wrong-derivative
# rule: derivative
# fails: values
# score: 4/5
class Tanh(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.tanh(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        return grad_output * (1 - y)
