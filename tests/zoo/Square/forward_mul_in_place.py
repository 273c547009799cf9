# mistake: squares x in place in forward (x.mul_(x)) and returns it: the caller's x is overwritten, and the saved x is x * x
# feedback: in place
# code: modifies-input
# rule: derivative
# fails: values
# score: 2/3
class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.mul_(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 2 * x
