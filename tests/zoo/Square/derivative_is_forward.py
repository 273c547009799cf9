# mistake: returns grad_output * x * x (the forward again) instead of the derivative 2x
# feedback: 2x
# code: wrong-derivative
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
        return grad_output * x * x
