# mistake: computes the mask from the input before clamping and keeps it on ctx, so nothing guards the output it stands for
# feedback: Its mask must come from the saved output
# code: output-change-unnoticed
# rule: saved
# fails: saved
# score: 2/3
class ClampInplace(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, low, high):
        ctx.mask = (x > low) & (x < high)
        x.clamp_(low, high)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.mask, None, None
