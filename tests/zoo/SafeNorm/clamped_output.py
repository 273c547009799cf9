# mistake: forward returns the norm clamped with clamp_min(1e-12) so that backward can divide by it
# feedback: clamp_min
# code: value-at-zero
# rule: zero_rows
# fails: zero_rows
# score: 4/6
class SafeNorm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        norm = x.norm(dim=-1).clamp_min(1e-12)
        ctx.save_for_backward(x, norm)
        return norm

    @staticmethod
    def backward(ctx, grad_output):
        x, norm = ctx.saved_tensors
        return grad_output.unsqueeze(-1) * x / norm.unsqueeze(-1)
