# mistake: averages the broadcast copies (mean) instead of adding them up (sum)
# feedback: mean
# code: mean-not-sum
# rule: leading
# fails: values size1 many
# score: 0/3
def unbroadcast(grad, shape):
    shape = tuple(shape)
    extra = grad.dim() - len(shape)
    if extra > 0:
        grad = grad.mean(dim=tuple(range(extra)))
    widened = tuple(i for i, size in enumerate(shape) if size == 1 and grad.shape[i] != 1)
    if widened:
        grad = grad.mean(dim=widened, keepdim=True)
    return grad
