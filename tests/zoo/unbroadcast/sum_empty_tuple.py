# mistake: always calls grad.sum(dim=tuple(range(extra))), which sums EVERYTHING when extra is 0
# feedback: sum(dim=())
# code: summed-everything
# rule: edges
# fails: many
# score: 2/3
def unbroadcast(grad, shape):
    shape = tuple(shape)
    extra = grad.dim() - len(shape)
    grad = grad.sum(dim=tuple(range(extra)))
    for i, size in enumerate(shape):
        if size == 1 and grad.dim() == len(shape) and grad.shape[i] != 1:
            grad = grad.sum(dim=i, keepdim=True)
    return grad
