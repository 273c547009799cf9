# mistake: saves a bool mask computed before the clamp (save_for_backward of a fresh tensor), so nothing guards the output
# feedback: Its mask must come from the saved output
# code: output-change-unnoticed
# rule: saved
# fails: saved
# score: 2/3
class ClampInplace(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, low, high):
        inside = (x > low) & (x < high)
        x.clamp_(min=low, max=high)
        ctx.mark_dirty(x)
        ctx.save_for_backward(inside)
        return x

    @staticmethod
    def backward(ctx, grad_output):
        (inside,) = ctx.saved_tensors
        return torch.where(inside, grad_output, 0.0), None, None
