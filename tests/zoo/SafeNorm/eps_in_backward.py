# mistake: backward divides by norm + 1e-6 to avoid 0 / 0, which changes the gradient of every row
# feedback: eps added to the norm
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
        return grad_output.unsqueeze(-1) * x / (norm.unsqueeze(-1) + 1e-6)
