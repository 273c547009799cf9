# mistake: builds the mask from a float32 copy of x (|x| just above 1 in float64 rounds to 1)
# feedback: just outside
# code: wrong-clip-mask
# rule: boundary
# fails: boundary
# score: 5/6
class SignSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.sign(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * (x.float().abs() <= 1)
