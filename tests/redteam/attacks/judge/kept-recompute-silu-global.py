# exercise: RecomputeSiLU
# base: sigmoid_in_a_list_on_ctx
# what: saves x, but keeps sigmoid(x) for backward in a module-level dict keyed by id(ctx),
#   where a walk of ctx's containers does not reach it (the zoo's sigmoid_in_a_list_on_ctx, hidden deeper)
_KEPT = {}
class RecomputeSiLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        s = torch.sigmoid(x)
        _KEPT[id(ctx)] = s
        return x * s

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        s = _KEPT.get(id(ctx))
        s = s if s is not None else torch.sigmoid(x)
        return grad_output * (s + x * s * (1 - s))
