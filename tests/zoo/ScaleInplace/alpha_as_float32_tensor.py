# mistake: turns alpha into torch.tensor(alpha) (float32 by default) and multiplies by it: x is scaled by alpha rounded to float32
# feedback: returned is wrong
# code: wrong-forward
# rule: values
# fails: values
# score: 2/3
class ScaleInplace(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, alpha):
        scale = torch.tensor(alpha)
        ctx.save_for_backward(scale)
        x.mul_(scale)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, grad_output):
        (scale,) = ctx.saved_tensors
        return grad_output * scale, None
