# mistake: averages the broadcast copies (mean) instead of adding them up (sum), both over the leading dimensions and over the size-1 ones
# feedback: mean
# code: mean-not-sum
# rule: leading size1
# fails: values size1
# score: 1/3
def unbroadcast(grad, shape):
    shape = tuple(shape)
    extra = grad.dim() - len(shape)
    if extra > 0:
        grad = grad.mean(dim=tuple(range(extra)))
    widened = tuple(i for i, size in enumerate(shape) if size == 1 and grad.shape[i] != 1)
    if widened:
        grad = grad.mean(dim=widened, keepdim=True)
    return grad
