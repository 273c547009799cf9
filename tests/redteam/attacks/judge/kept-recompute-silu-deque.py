# exercise: RecomputeSiLU
# base: sigmoid_in_a_list_on_ctx
# what: saves x, but keeps sigmoid(x) for backward in a collections.deque on ctx,
#   where a walk of ctx's containers does not reach it (the zoo's sigmoid_in_a_list_on_ctx, hidden deeper)
import collections
class RecomputeSiLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        s = torch.sigmoid(x)
        ctx.cache = collections.deque([s])
        return x * s

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        s = ctx.cache[0]
        return grad_output * (s + x * s * (1 - s))
