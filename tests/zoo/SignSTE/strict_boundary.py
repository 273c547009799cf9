# mistake: the mask uses < instead of <=, so the gradient is zeroed at |x| == 1 exactly
# feedback: exactly counts as inside
# code: strict-boundary
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
        return grad_output * (x.abs() < 1)
