# mistake: the where-fix is right, but backward multiplies grad_output in place (grad_output.mul_(...))
# feedback: wrote in place into a tensor
# code: inplace-grad-output
# fails: away
# score: 3/4
CAUSE_Sinc = "zero-over-zero"


class Sinc(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.where(x == 0, 1.0, torch.sin(x) / x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        slope = (x * torch.cos(x) - torch.sin(x)) / x ** 2
        return grad_output.mul_(torch.where(x == 0, 0.0, slope))
