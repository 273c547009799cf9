# mistake: forward computes the norm in float32 (x.float()) and returns it so: a float64 input gets a float32 norm
# feedback: should have torch.float64
# code: wrong-dtype|float32-precision
# rule: derivative
# fails: values gradcheck
# score: 3/6
class SafeNorm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        norm = x.float().norm(dim=-1)
        ctx.save_for_backward(x, norm)
        return norm

    @staticmethod
    def backward(ctx, grad_output):
        x, norm = ctx.saved_tensors
        norm = norm.unsqueeze(-1)
        return grad_output.unsqueeze(-1) * torch.where(norm > 0, x / norm, 0.0)
