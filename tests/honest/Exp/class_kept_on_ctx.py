# A correct Exp that keeps a class and a function on ctx (neither is a tensor) besides the saved output.
import collections


class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.kind = collections.OrderedDict
        ctx.op = torch.mul
        y = torch.exp(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        return ctx.op(grad_output, y)
