# mistake: guards the leading sum against dim=() but not the widened one: with nothing to widen, sum(dim=(), keepdim=True) makes every dimension size 1
# feedback: keepdim=True) sums over EVERY dimension
# code: summed-everything
# rule: edges
# fails: many
# score: 2/3
def unbroadcast(grad, shape):
    shape = tuple(shape)
    extra = grad.dim() - len(shape)
    if extra > 0:
        grad = grad.sum(dim=tuple(range(extra)))
    widened = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    return grad.sum(dim=widened, keepdim=True)
