# mistake: forward adds 1e-10 under the square root (x.pow(2).sum(-1).add(1e-10).sqrt()), so a zero row reads 1e-5 and every short row is longer than it is; backward divides by that norm
# feedback: eps inside the square root
# code: value-biased
# rule: small_norms
# fails: small_norms
# score: 5/6
class SafeNorm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        norm = x.pow(2).sum(dim=-1).add(1e-10).sqrt()
        ctx.save_for_backward(x, norm)
        return norm

    @staticmethod
    def backward(ctx, grad_output):
        x, norm = ctx.saved_tensors
        return grad_output.unsqueeze(-1) * x / norm.unsqueeze(-1)
