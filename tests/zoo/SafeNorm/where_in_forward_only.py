# mistake: the zero guard sits in forward only (where(norm > 0, norm, 0), a no-op), backward divides by the raw norm: NaN on zero rows
# feedback: NaN
# code: nan-at-zero
# rule: zero_rows
# fails: zero_rows
# score: 4/6
class SafeNorm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        norm = x.norm(dim=-1)
        norm = torch.where(norm > 0, norm, torch.zeros_like(norm))
        ctx.save_for_backward(x, norm)
        return norm

    @staticmethod
    def backward(ctx, grad_output):
        x, norm = ctx.saved_tensors
        return grad_output.unsqueeze(-1) * x / norm.unsqueeze(-1)
