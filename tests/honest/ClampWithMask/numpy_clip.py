# style: the whole forward in NumPy (np.clip, a float mask of x's dtype), saves the mask
class ClampWithMask(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, lo, hi):
        a = x.detach().cpu().numpy()
        mask = torch.from_numpy(((a >= lo) & (a <= hi)).astype(a.dtype)).to(x.device)
        ctx.mark_non_differentiable(mask)
        ctx.save_for_backward(mask)
        return torch.from_numpy(np.clip(a, lo, hi)).to(x.device), mask

    @staticmethod
    def backward(ctx, grad_output, grad_mask):
        (mask,) = ctx.saved_tensors
        return grad_output * mask, None, None
