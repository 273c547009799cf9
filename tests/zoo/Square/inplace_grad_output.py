# mistake: multiplies grad_output in place (grad_output may be shared or an expanded view)
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
        (x,) = ctx.saved_tensors
        return grad_output.mul_(2).mul_(x)
