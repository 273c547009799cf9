# mistake: doubles grad_output in place first (grad_output *= 2), then multiplies by x: a write into autograd's grad_output
# feedback: in place
# code: inplace-grad-output
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
        grad_output *= 2
        (x,) = ctx.saved_tensors
        return grad_output * x
