# mistake: backward replaces the zero norms by 1 in place, changing the output the caller holds
# feedback: in place
# code: modifies-output
# rule: derivative
# fails: values gradcheck
# family: inplace-error
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
        norm[norm == 0] = 1.0
        return grad_output.unsqueeze(-1) * x / norm.unsqueeze(-1)
