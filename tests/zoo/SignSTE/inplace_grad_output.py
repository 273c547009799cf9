# mistake: zeroes grad_output in place (after .sum() it is one number broadcast everywhere, so all become 0)
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
        grad_output[x.abs() > 1] = 0
        return grad_output
