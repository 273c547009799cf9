# mistake: clamps x itself through .data (x.data.clamp_) and returns a copy: the caller's x is clamped
# feedback: in place
# code: modifies-input
# rule: forward
# fails: values
# score: 2/3
class ClampWithMask(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, lo, hi):
        mask = ((x >= lo) & (x <= hi)).to(x.dtype)
        ctx.mark_non_differentiable(mask)
        ctx.save_for_backward(mask)
        return x.data.clamp_(lo, hi).clone(), mask

    @staticmethod
    def backward(ctx, grad_output, grad_mask):
        (mask,) = ctx.saved_tensors
        return grad_output * mask, None, None
