# mistake: multiplies grad_output by the mask into grad_output itself (torch.mul(..., out=grad_output))
# feedback: in place
# code: inplace-grad-output
# rule: clipped
# fails: backward
# score: 4/6
class SignSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.sign(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return torch.mul(grad_output, x.abs() <= 1, out=grad_output)
