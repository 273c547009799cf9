# exercise: RecomputeSiLU
# base: sigmoid_in_a_list_on_ctx
# what: saves x, but keeps sigmoid(x) for backward in a list nested twelve deep on ctx,
#   where a walk of ctx's containers does not reach it (the zoo's sigmoid_in_a_list_on_ctx, hidden deeper)
class RecomputeSiLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        s = torch.sigmoid(x)
        nest = [s]
        for _ in range(12):
            nest = [nest]
        ctx.cache = nest
        return x * s

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        nest = ctx.cache
        while isinstance(nest, list):
            nest = nest[0]
        s = nest
        return grad_output * (s + x * s * (1 - s))
