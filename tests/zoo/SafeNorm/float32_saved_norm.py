# mistake: forward returns the norm in x's dtype but saves a float32 copy of it for backward
# feedback: off by float32's rounding
# code: float32-precision
# rule: derivative
# fails: values
# score: 4/6
class SafeNorm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        norm = x.norm(dim=-1)
        ctx.save_for_backward(x, norm.float())
        return norm

    @staticmethod
    def backward(ctx, grad_output):
        x, norm = ctx.saved_tensors
        norm = norm.unsqueeze(-1)
        return grad_output.unsqueeze(-1) * torch.where(norm > 0, x / norm, 0.0)
