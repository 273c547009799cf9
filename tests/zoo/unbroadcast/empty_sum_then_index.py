# mistake: sums dim=tuple(range(extra)) even when extra is 0 (every dimension is summed), then indexes the scalar left
# feedback: sums over EVERY dimension
# code: summed-everything
# rule: edges
# fails: many
# score: 2/3
def unbroadcast(grad, shape):
    shape = tuple(shape)
    extra = grad.dim() - len(shape)
    grad = grad.sum(dim=tuple(range(extra)))
    widened = tuple(i for i, size in enumerate(shape) if size == 1 and grad.shape[i] != 1)
    if widened:
        grad = grad.sum(dim=widened, keepdim=True)
    return grad
