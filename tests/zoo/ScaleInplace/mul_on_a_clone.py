# mistake: scales a clone of x "in place" under no_grad and marks the clone dirty; x itself never changes
# feedback: not on a clone
# code: returns-new-tensor
# rule: version
# fails: version
# score: 2/3
class ScaleInplace(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, alpha):
        ctx.alpha = alpha
        with torch.no_grad():
            out = x.clone()
            out.mul_(alpha)
        ctx.mark_dirty(out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.alpha, None
