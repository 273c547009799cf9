# mistake: forward computes sqrt(sum(x**2) + 1e-12), so no norm is ever 0, and every value is biased
# feedback: eps inside the square root
# code: value-at-zero|value-biased
# rule: zero_rows
# fails: zero_rows small_norms
# score: 3/6
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
