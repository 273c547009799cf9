# mistake: grad_output is multiplied without unsqueeze(-1), so it lines up with the wrong dimension
# feedback: unsqueeze
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
        return grad_output * torch.where(norm > 0, x / norm, 0.0)
