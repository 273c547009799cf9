# mistake: sums the leading dims with keepdim=True, then squeezes only dim 0: one size-1 dim is left for each further leading dim
# feedback: extra leading dimension
# code: leading-dims-kept
# rule: leading
# fails: values
# score: 2/3
def unbroadcast(grad, shape):
    shape = tuple(shape)
    extra = grad.dim() - len(shape)
    if extra > 0:
        grad = grad.sum(dim=tuple(range(extra)), keepdim=True).squeeze(0)
    widened = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i - len(shape) + grad.dim()] != 1)
    if widened:
        grad = grad.sum(dim=tuple(i - len(shape) for i in widened), keepdim=True)
    return grad
