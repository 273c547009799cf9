# mistake: backward multiplies by y.float(), returning float32 for a float64 input (autograd casts it back silently)
# feedback: float32
# code: float32-precision
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
        return grad_output * y.float()
