# mistake: the double where of the notebook copied into forward, with backward written for the norm without a guard
# feedback: NaN
# code: nan-at-zero
# rule: zero_rows
# fails: zero_rows
# score: 4/6
class SafeNorm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        squared = (x ** 2).sum(dim=-1)
        norm = torch.where(squared > 0, torch.where(squared > 0, squared, 1.0).sqrt(), 0.0)
        ctx.save_for_backward(x, norm)
        return norm

    @staticmethod
    def backward(ctx, grad_output):
        x, norm = ctx.saved_tensors
        return grad_output.unsqueeze(-1) * x / norm.unsqueeze(-1)
