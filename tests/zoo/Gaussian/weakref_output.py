# mistake: the output is kept through a weak reference on ctx (no cycle), recomputed if gone: an in-place change of the output goes unnoticed
# feedback: the output was changed in place after forward
# code: unguarded-output
# fails: freed
# score: 2/4
CAUSE_Gaussian = "reference-cycle"
import weakref as _weakref


class Gaussian(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        out = torch.exp(-x * x)
        ctx.save_for_backward(x)
        ctx.out = _weakref.ref(out)                  # no strong reference: no cycle
        return out

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        out = ctx.out()
        if out is None:
            out = torch.exp(-x * x)
        return grad_output * -2 * x * out
