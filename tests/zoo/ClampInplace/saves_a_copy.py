# mistake: saves a copy of the input before clamping and reads the mask from it: memory for a copy, and nothing guards the output
# feedback: Its mask must come from the saved output
# code: output-change-unnoticed
# rule: saved
# fails: saved
# score: 2/3
class ClampInplace(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, low, high):
        ctx.save_for_backward(x.clone())
        ctx.low, ctx.high = low, high
        x.clamp_(low, high)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * ((x > ctx.low) & (x < ctx.high)), None, None
