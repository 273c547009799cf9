# mistake: keeps x and the norm as plain ctx attributes (ctx.x, ctx.norm) instead of ctx.save_for_backward
# feedback: save_for_backward
# code: not-saved-for-backward
# rule: derivative
# fails: values
# score: 4/6
class SafeNorm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        norm = x.norm(dim=-1)
        ctx.x, ctx.norm = x, norm
        return norm

    @staticmethod
    def backward(ctx, grad_output):
        norm = ctx.norm.unsqueeze(-1)
        unit = torch.where(norm > 0, ctx.x / norm, 0.0)
        return grad_output.unsqueeze(-1) * unit
