# mistake: forgets ctx.mark_non_differentiable(mask), so the float mask requires grad
# feedback: mark_non_differentiable
# code: mask-requires-grad
# rule: mask
# fails: mask
# score: 2/3
class ClampWithMask(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, lo, hi):
        mask = ((x >= lo) & (x <= hi)).to(x.dtype)
        ctx.save_for_backward(mask)
        return x.clamp(lo, hi), mask

    @staticmethod
    def backward(ctx, grad_output, grad_mask):
        (mask,) = ctx.saved_tensors
        return grad_output * mask, None, None
