# mistake: a wrapper whose apply calls forward directly, so autograd differentiates x * x itself
# feedback: .apply
# code: forward-called-directly
# rule: graph
# fails: graph saved
# score: 1/3
class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * x

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output

    @classmethod
    def apply(cls, x):
        return cls.forward(None, x)
