# mistake: forward maps 0 to +1 with a comparison instead of torch.sign (sign(0) is 0)
# feedback: sign(0) is 0
# code: wrong-sign-at-zero
# rule: forward
# fails: values
# score: 5/6
class SignSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.where(x >= 0, 1.0, -1.0).to(x.dtype)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * (x.abs() <= 1)
