# style: returns the mask, keeps its own copy of it on ctx (a clone is the Function's own tensor)
class ClampWithMask(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, lo, hi):
        mask = torch.where((x >= lo) & (x <= hi), 1.0, 0.0).to(x.dtype)
        ctx.mark_non_differentiable(mask)
        ctx.keep = mask.clone()
        return torch.clamp(x, lo, hi), mask

    @staticmethod
    def backward(ctx, grad_output, grad_mask):
        return grad_output * ctx.keep, None, None
