# mistake: passes the gradient through everywhere, also where x was clamped
# feedback: only where lo <= x <= hi
# code: wrong-derivative
# rule: gradient
# fails: gradcheck
# score: 2/3
class ClampWithMask(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, lo, hi):
        mask = ((x >= lo) & (x <= hi)).to(x.dtype)
        ctx.mark_non_differentiable(mask)
        return x.clamp(lo, hi), mask

    @staticmethod
    def backward(ctx, grad_output, grad_mask):
        return grad_output, None, None
