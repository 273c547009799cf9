# mistake: a wrapper whose apply calls forward directly (with a ctx of its own), so autograd never records Square and differentiates x * x itself
# feedback: .apply
# code: forward-called-directly
# rule: graph
# fails: graph
# score: 2/3
class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 2 * x

    @classmethod
    def apply(cls, x):
        return cls.forward(torch.autograd.function.FunctionCtx(), x)
