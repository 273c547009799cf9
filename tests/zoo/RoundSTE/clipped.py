# mistake: clips the gradient to |x| <= 1 (SignSTE's rule) although RoundSTE passes it through everywhere
# feedback: unchanged everywhere
# code: clipped-round
# rule: straight_through
# fails: backward
# score: 3/5
class RoundSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.round(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * (x.abs() <= 1)
