# mistake: when the batch has a zero row, backward divides by the norm clamped at 1, changing every row shorter than 1
# feedback: without zero rows
# code: zero-rows-spill
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
        if bool((norm == 0).any()):
            norm = norm.clamp_min(1.0)
        return grad_output.unsqueeze(-1) * x / norm.unsqueeze(-1)
