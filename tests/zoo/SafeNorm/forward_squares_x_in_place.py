# mistake: squares x itself through .data (x.data.pow_(2)) to sum the squares, after saving a copy: the caller's x is changed
# feedback: in place
# code: modifies-input|wrong-derivative
# rule: derivative
# fails: values gradcheck
# score: 3/6
class SafeNorm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        saved = x.clone()
        norm = x.data.pow_(2).sum(dim=-1).sqrt()
        ctx.save_for_backward(saved, norm)
        return norm

    @staticmethod
    def backward(ctx, grad_output):
        x, norm = ctx.saved_tensors
        norm = norm.unsqueeze(-1)
        unit = torch.where(norm > 0, x / norm, 0.0)
        return grad_output.unsqueeze(-1) * unit
