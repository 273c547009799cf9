# mistake: returns zero gradients for the float bounds lo and hi instead of None
# feedback: None
# code: missing-none
# rule: gradient
# fails: gradcheck
# score: 2/3
class ClampWithMask(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, lo, hi):
        mask = ((x >= lo) & (x <= hi)).to(x.dtype)
        ctx.mark_non_differentiable(mask)
        ctx.save_for_backward(mask)
        return x.clamp(lo, hi), mask

    @staticmethod
    def backward(ctx, grad_output, grad_mask):
        (mask,) = ctx.saved_tensors
        return grad_output * mask, torch.zeros(()), torch.zeros(())
