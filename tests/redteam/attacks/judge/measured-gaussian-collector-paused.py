# exercise: Gaussian
# base: unchanged
# what: the broken Gaussian (the output kept as ctx.out: a reference cycle), which keeps the output on ctx only
#   while the garbage collector runs: the freed test paused it, and `gc.isenabled()` said so. Every call the
#   grader serves must run under the same collector state.
import gc

CAUSE_Gaussian = "reference-cycle"


class Gaussian(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        out = torch.exp(-x * x)
        if gc.isenabled():
            ctx.save_for_backward(x)
            ctx.out = out
        else:
            ctx.save_for_backward(x, out)
            ctx.out = None
        return out

    @staticmethod
    def backward(ctx, grad_output):
        saved = ctx.saved_tensors
        out = ctx.out if ctx.out is not None else saved[1]
        return grad_output * -2 * saved[0] * out
