# A right Square beside a table of the dtypes the learner tried, torch.uint16 among them: a value the judge's codec
# does not carry. It goes as a handle (or, sent by value anyway, fails that name only): Square keeps 3/3.
SUPPORTED_DTYPES = (torch.float32, torch.float64, torch.uint16)
LAST_DTYPE = torch.uint16


class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 2 * x
