# mistake: backward divides by norm.clamp_min(1e-5), which shortens the gradient of every row shorter than 1e-5
# feedback: instead of 1
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
        return grad_output.unsqueeze(-1) * x / norm.clamp_min(1e-5).unsqueeze(-1)
