# mistake: sums the widened size-1 dimensions without keepdim=True, so they disappear
# feedback: keepdim=True
# code: size1-dropped
# rule: size1
# fails: size1
# score: 2/3
def unbroadcast(grad, shape):
    shape = tuple(shape)
    extra = grad.dim() - len(shape)
    if extra > 0:
        grad = grad.sum(dim=tuple(range(extra)))
    widened = tuple(i for i, size in enumerate(shape) if size == 1 and grad.shape[i] != 1)
    if widened:
        grad = grad.sum(dim=widened)
    return grad
