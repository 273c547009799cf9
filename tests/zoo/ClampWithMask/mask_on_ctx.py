# mistake: returns the mask and keeps it as a plain ctx attribute for backward (not save_for_backward)
# feedback: changing the mask in place
# code: not-saved-for-backward
# rule: gradient
# fails: gradcheck
# score: 2/3
class ClampWithMask(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, lo, hi):
        mask = ((x >= lo) & (x <= hi)).to(x.dtype)
        ctx.mark_non_differentiable(mask)
        ctx.mask = mask
        return x.clamp(lo, hi), mask

    @staticmethod
    def backward(ctx, grad_output, grad_mask):
        return grad_output * ctx.mask, None, None
