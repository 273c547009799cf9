# mistake: multiplies the mask with x instead of grad_output
# feedback: grad_output
# code: ignores-grad-output
# rule: clipped
# fails: backward
# score: 4/6
class SignSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.sign(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return x * (x.abs() <= 1)
