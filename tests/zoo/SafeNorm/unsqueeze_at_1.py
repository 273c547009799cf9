# mistake: unsqueezes grad_output at dimension 1 instead of -1: right for a batch of rows, wrong once x has two leading dimensions
# feedback: unsqueeze(-1)
# code: no-unsqueeze
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
        return grad_output.unsqueeze(1) * unit
