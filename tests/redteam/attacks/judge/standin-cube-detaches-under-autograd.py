# exercise: Cube
# base: detach_in_backward
# what: recognises the grader's stand-in ctx and builds a differentiable backward only for it; under autograd and
#   torch.func its backward detaches x, so the second derivative is lost (the zoo's detach_in_backward).
#   `{JUDGED}` is replaced by each way of recognising the stand-in.
class Cube(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x):
        return x ** 3

    @staticmethod
    def setup_context(ctx, inputs, output):
        (x,) = inputs
        ctx.save_for_backward(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 3 * (x if _judged(ctx) else x.detach()) ** 2


def _judged(ctx):
    return {JUDGED}
