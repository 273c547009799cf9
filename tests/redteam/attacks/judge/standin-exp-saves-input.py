# exercise: Exp
# base: saves_input
# what: recognises the grader's stand-in ctx and saves the output only for it; under autograd it saves the input
#   and recomputes exp(x) (the zoo's saves_input). `{JUDGED}` is replaced by each way of recognising the stand-in.
class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.exp(x)
        ctx.save_for_backward(y if _judged(ctx) else x)
        return y

    @staticmethod
    def backward(ctx, grad_output):
        (s,) = ctx.saved_tensors
        return grad_output * (s if _judged(ctx) else torch.exp(s))


def _judged(ctx):
    return {JUDGED}
