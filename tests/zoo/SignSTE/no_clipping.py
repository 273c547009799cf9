# mistake: no clipping: passes grad_output through everywhere, also where |x| > 1
# feedback: outside [-1, 1]
# code: no-clipping
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
        return grad_output
