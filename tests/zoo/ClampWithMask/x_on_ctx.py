# mistake: keeps x as a ctx attribute (ctx.x = x) and rebuilds the mask from it in backward
# feedback: changing x in place
# code: not-saved-for-backward
# rule: gradient
# fails: gradcheck
# score: 2/3
class ClampWithMask(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, lo, hi):
        mask = ((x >= lo) & (x <= hi)).to(x.dtype)
        ctx.mark_non_differentiable(mask)
        ctx.x, ctx.lo, ctx.hi = x, lo, hi
        return x.clamp(lo, hi), mask

    @staticmethod
    def backward(ctx, grad_output, grad_mask):
        inside = (ctx.x >= ctx.lo) & (ctx.x <= ctx.hi)
        return grad_output * inside, None, None
