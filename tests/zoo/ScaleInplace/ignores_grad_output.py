# mistake: backward returns the local derivative alpha everywhere, without multiplying by grad_output
# feedback: ignores grad_output
# code: ignores-grad-output
# rule: values
# fails: values
# score: 2/3
class ScaleInplace(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, alpha):
        ctx.alpha = alpha
        x.mul_(alpha)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, grad_output):
        return torch.full_like(grad_output, ctx.alpha), None
