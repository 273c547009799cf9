# mistake: saves x with save_for_backward but keeps the norm (the output) as a plain ctx attribute
# feedback: save_for_backward
# code: not-saved-for-backward
# rule: derivative
# fails: values
# score: 4/6
class SafeNorm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        norm = x.norm(dim=-1)
        ctx.save_for_backward(x)
        ctx.norm = norm
        return norm

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        norm = ctx.norm.unsqueeze(-1)
        unit = torch.where(norm > 0, x / norm, 0.0)
        return grad_output.unsqueeze(-1) * unit
