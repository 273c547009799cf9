# mistake: backward computes the unit vector in float32 (.float()) and casts the gradient back
# feedback: backward computes something in float32
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
        norm = norm.unsqueeze(-1).float()
        unit = torch.where(norm > 0, x.float() / norm, 0.0)
        return (grad_output.unsqueeze(-1) * unit).to(x.dtype)
