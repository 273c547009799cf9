# mistake: the mask includes lo and hi, but backward recomputes its own comparison with lo < x < hi
# feedback: boundary points included
# code: wrong-derivative
# rule: gradient
# fails: gradcheck
# score: 2/3
class ClampWithMask(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, lo, hi):
        mask = ((x >= lo) & (x <= hi)).to(x.dtype)
        ctx.mark_non_differentiable(mask)
        ctx.save_for_backward(x)
        ctx.lo, ctx.hi = lo, hi
        return x.clamp(lo, hi), mask

    @staticmethod
    def backward(ctx, grad_output, grad_mask):
        (x,) = ctx.saved_tensors
        return grad_output * ((x > ctx.lo) & (x < ctx.hi)).to(x.dtype), None, None
