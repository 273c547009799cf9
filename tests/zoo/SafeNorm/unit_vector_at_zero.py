# mistake: at a zero row backward returns a fixed unit vector (a subgradient) instead of 0
# feedback: exactly 0
# code: nonzero-at-zero
# rule: zero_rows
# fails: zero_rows
# score: 4/6
class SafeNorm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        norm = x.norm(dim=-1)
        ctx.save_for_backward(x, norm)
        return norm

    @staticmethod
    def backward(ctx, grad_output):
        x, norm = ctx.saved_tensors
        norm = norm.unsqueeze(-1)
        fallback = torch.ones_like(x) / x.shape[-1] ** 0.5      # any unit vector is a subgradient at 0
        return grad_output.unsqueeze(-1) * torch.where(norm > 0, x / norm, fallback)
