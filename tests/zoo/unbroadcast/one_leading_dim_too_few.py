# mistake: counts the leading dimensions from 1 (range(1, extra)), so one of them is never summed away
# feedback: extra leading dimension
# code: leading-dims-kept
# rule: leading
# fails: values
# score: 2/3
def unbroadcast(grad, shape):
    shape = tuple(shape)
    extra = grad.dim() - len(shape)
    for _ in range(1, extra):
        grad = grad.sum(0)
    widened = [i for i, n in enumerate(shape) if n == 1 and grad.shape[grad.dim() - len(shape) + i] != 1]
    if widened:
        grad = grad.sum(dim=[grad.dim() - len(shape) + i for i in widened], keepdim=True)
    return grad
