# style: the change made through x.data (as an external kernel writing into x's memory would), declared with
# ctx.mark_dirty, which moves the version counter itself: notebook 12 (demo-7-data) shows it is protected
class ScaleInplace(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, alpha):
        ctx.alpha = alpha
        x.data.mul_(alpha)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.alpha, None
