# mistake: mask is .float() (float32) whatever x's dtype
# feedback: x's dtype
# code: wrong-dtype
# rule: mask
# fails: mask
# score: 2/3
class ClampWithMask(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, lo, hi):
        mask = ((x >= lo) & (x <= hi)).float()
        ctx.mark_non_differentiable(mask)
        ctx.save_for_backward(mask)
        return x.clamp(lo, hi), mask

    @staticmethod
    def backward(ctx, grad_output, grad_mask):
        (mask,) = ctx.saved_tensors
        return grad_output * mask, None, None
