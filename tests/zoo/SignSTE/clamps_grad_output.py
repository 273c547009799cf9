# mistake: clamps grad_output to [-1, 1] instead of zeroing it where |x| > 1
# feedback: outside [-1, 1]
# code: wrong-clip-mask
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
        return grad_output.clamp(-1, 1)
