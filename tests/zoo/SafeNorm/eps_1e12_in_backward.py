# mistake: adds eps = 1e-12 to the norm in backward only (x / (norm + 1e-12)): rows of norm 1e-9 lose 0.1% of their gradient
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
        return grad_output.unsqueeze(-1) * x / (norm.unsqueeze(-1) + 1e-12)
