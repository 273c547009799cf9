# mistake: computes the local derivative in float32 and casts back: 1e-8 off in float64, and float32 noise for the second derivative
# feedback: dtype throughout
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
        yf = y.float()
        return grad_output * (1 - yf * yf).to(y.dtype)
