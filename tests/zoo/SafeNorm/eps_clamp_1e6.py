# mistake: divides by norm.clamp(min=1e-6) in backward, so every row shorter than 1e-6 gets a gradient too short
# feedback: however short
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
        return grad_output.unsqueeze(-1) * x / norm.clamp(min=1e-6).unsqueeze(-1)
