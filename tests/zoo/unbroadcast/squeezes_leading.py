# mistake: drops extra leading dims with squeeze(0) while they have size 1, and never sums the others
# feedback: extra leading dimension
# code: leading-dims-kept
# rule: leading
# fails: values
# score: 2/3
def unbroadcast(grad, shape):
    shape = tuple(shape)
    while grad.dim() > len(shape) and grad.shape[0] == 1:
        grad = grad.squeeze(0)
    widened = tuple(i for i, size in enumerate(shape) if size == 1 and grad.shape[i - len(shape) + grad.dim()] != 1)
    if widened:
        grad = grad.sum(dim=tuple(i - len(shape) for i in widened), keepdim=True)
    return grad
