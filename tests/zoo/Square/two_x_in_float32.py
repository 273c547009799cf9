# mistake: computes 2 * x in float32 and casts it back: float64 gradients lose their last digits
# feedback: float32
# code: float32-precision
# rule: derivative
# fails: values
# score: 2/3
class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * (2 * x.float()).to(x.dtype)
