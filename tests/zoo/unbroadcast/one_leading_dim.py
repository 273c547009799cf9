# mistake: sums dimension 0 once, so a gradient with two or more extra leading dimensions keeps the rest
# feedback: extra leading dimension
# code: leading-dims-kept
# rule: leading
# fails: values
# score: 2/3
def unbroadcast(grad, shape):
    shape = tuple(shape)
    if grad.dim() > len(shape):
        grad = grad.sum(dim=0)
    widened = tuple(i for i, size in enumerate(shape) if size == 1 and grad.shape[i] != 1)
    if widened:
        grad = grad.sum(dim=widened, keepdim=True)
    return grad
