# mistake: backward multiplies grad_output by the saved output in float32 and casts back: 1e-8 off in float64
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
        return (grad_output.float() * y.float()).to(y.dtype)
