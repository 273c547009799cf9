# mistake: a wrapper whose apply calls forward(None, x) directly, so autograd differentiates x * x itself; with no ctx, its forward saves nothing either
# feedback: .apply
# code: forward-called-directly|not-saved-for-backward
# rule: graph saved
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
