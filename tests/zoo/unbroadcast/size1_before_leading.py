# mistake: sums the size-1 dimensions first, indexing grad's dimensions from the left while the leading ones are still there
# feedback: size 1 in the target
# code: size1-not-summed
# rule: size1
# fails: size1
# score: 2/3
def unbroadcast(grad, shape):
    shape = tuple(shape)
    for i, size in enumerate(shape):
        if size == 1 and grad.shape[i] != 1:
            grad = grad.sum(dim=i, keepdim=True)
    extra = grad.dim() - len(shape)
    if extra > 0:
        grad = grad.sum(dim=tuple(range(extra)))
    return grad
