# mistake: forward computes sqrt(sum(x**2) + 1e-12), so no norm is ever 0: every value is biased (by sqrt(eps) at a zero row, and more than its length for every short row); the gradient at zero is 0
# feedback: eps inside the square root
# code: value-biased
# rule: small_norms
# fails: small_norms
# score: 5/6
class SafeNorm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        norm = torch.sqrt((x * x).sum(dim=-1) + 1e-12)
        ctx.save_for_backward(x, norm)
        return norm

    @staticmethod
    def backward(ctx, grad_output):
        x, norm = ctx.saved_tensors
        return grad_output.unsqueeze(-1) * x / norm.unsqueeze(-1)
