# mistake: forward keeps the last dimension (keepdim=True), so the output has shape (..., 1)
# feedback: keepdim=True
# code: wrong-dim
# rule: derivative
# fails: values
# score: 4/6
class SafeNorm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        norm = x.norm(dim=-1, keepdim=True)
        ctx.save_for_backward(x, norm)
        return norm

    @staticmethod
    def backward(ctx, grad_output):
        x, norm = ctx.saved_tensors
        unit = torch.where(norm > 0, x / norm, 0.0)
        return grad_output * unit
