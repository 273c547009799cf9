# mistake: backward accumulates into torch.zeros(x.shape), a float32 buffer whatever x's dtype, so a float64 gradient is rounded to float32
# feedback: off by float32's rounding
# code: float32-precision
# rule: derivative
# fails: values
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
        norm = norm.unsqueeze(-1)
        grad = torch.zeros(x.shape)
        grad += grad_output.unsqueeze(-1) * torch.where(norm > 0, x / norm, 0.0)
        return grad
