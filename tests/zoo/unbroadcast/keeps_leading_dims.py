# mistake: sums the extra leading dimensions with keepdim=True, so they stay as size-1 dimensions
# feedback: extra leading dimension
# code: leading-dims-kept
# rule: leading
# fails: values
# score: 2/3
def unbroadcast(grad, shape):
    shape = tuple(shape)
    extra = grad.dim() - len(shape)
    if extra > 0:
        grad = grad.sum(dim=tuple(range(extra)), keepdim=True)
    widened = tuple(i for i, size in enumerate(shape) if size == 1 and grad.shape[i + extra] != 1)
    if widened:
        grad = grad.sum(dim=tuple(i + extra for i in widened), keepdim=True)
    return grad
