# mistake: reshapes grad_output to (-1, 1), as if x were always a 2-d batch
# feedback: unsqueeze(-1)
# code: no-unsqueeze|wrong-derivative
# rule: derivative
# fails: values gradcheck
# score: 3/6
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
        unit = torch.where(norm > 0, x / norm, 0.0)
        return grad_output.reshape(-1, 1) * unit
