# mistake: builds tanh from exp, which overflows to inf/inf = NaN for large |x|
# feedback: overflow
# code: overflow
# rule: extremes
# fails: extremes
# score: 4/5
class Tanh(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        e = torch.exp(2 * x)
        y = (e - 1) / (e + 1)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        return grad_output * (1 - y * y)
