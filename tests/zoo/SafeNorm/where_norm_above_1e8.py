# mistake: guards with where(norm > 1e-8): rows shorter than 1e-8 get gradient 0 instead of their unit vector
# feedback: however short the row is
# code: eps-in-backward
# rule: small_norms
# fails: small_norms
# score: 5/6
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
        unit = torch.where(norm > 1e-8, x / norm, 0.0)
        return grad_output.unsqueeze(-1) * unit
