# mistake: backward divides by the norm without guarding zero rows: 0 / 0 = NaN there
# feedback: NaN
# code: nan-at-zero
# rule: zero_rows
# fails: zero_rows
# score: 4/6
class SafeNorm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        norm = x.norm(dim=-1)
        ctx.save_for_backward(x, norm)
        return norm

    @staticmethod
    def backward(ctx, grad_output):
        x, norm = ctx.saved_tensors
        return grad_output.unsqueeze(-1) * x / norm.unsqueeze(-1)
