# mistake: forward computes the norm in float32 and casts it back to x's dtype: right dtype, float32's precision
# feedback: off by float32's rounding
# code: float32-precision
# rule: derivative
# fails: values gradcheck
# score: 3/6
class SafeNorm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        norm = x.to(torch.float32).norm(dim=-1).to(x.dtype)
        ctx.save_for_backward(x, norm)
        return norm

    @staticmethod
    def backward(ctx, grad_output):
        x, norm = ctx.saved_tensors
        norm = norm.unsqueeze(-1)
        return grad_output.unsqueeze(-1) * torch.where(norm > 0, x / norm, 0.0)
