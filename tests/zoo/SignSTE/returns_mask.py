# mistake: returns the boolean mask itself: it forgets grad_output, and hands autograd a bool tensor, not a gradient of x's dtype (the engine silently turns it into 0/1 floats)
# feedback: grad_output
# code: ignores-grad-output|wrong-dtype
# rule: clipped dtype
# fails: backward dtype
# score: 3/6
class SignSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.sign(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return x.abs() <= 1
