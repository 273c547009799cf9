# mistake: backward multiplies grad_output in place (grad_output.mul_(...))
# feedback: wrote in place into a tensor
# code: inplace-grad-output
# fails: values
# score: 3/4
CAUSE_Gaussian = "reference-cycle"


class Gaussian(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        out = torch.exp(-x * x)
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        x, out = ctx.saved_tensors
        return grad_output.mul_(-2 * x * out)
