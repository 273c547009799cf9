# style: saves x, recomputes the mask as (clamped == x) in backward; torch.where
class ClampWithMask(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, lo, hi):
        out = torch.clamp(x, min=lo, max=hi)
        mask = torch.where(out == x, 1.0, 0.0).to(x.dtype)
        ctx.mark_non_differentiable(mask)
        ctx.save_for_backward(x)
        ctx.lo, ctx.hi = lo, hi
        return out, mask

    @staticmethod
    def backward(ctx, grad_output, grad_mask):
        (x,) = ctx.saved_tensors
        inside = (x >= ctx.lo) & (x <= ctx.hi)
        return torch.where(inside, grad_output, torch.zeros_like(grad_output)), None, None
