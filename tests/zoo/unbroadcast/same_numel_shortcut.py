# mistake: returns grad unchanged when its number of elements already matches the shape (a (1,) grad for a () shape keeps its dimension)
# feedback: extra leading dimension
# code: leading-dims-kept
# rule: leading
# fails: values
# score: 2/3
def unbroadcast(grad, shape):
    shape = tuple(shape)
    if grad.numel() == torch.Size(shape).numel():
        return grad
    extra = grad.dim() - len(shape)
    if extra > 0:
        grad = grad.sum(dim=tuple(range(extra)))
    widened = tuple(i for i, size in enumerate(shape) if size == 1 and grad.shape[i] != 1)
    if widened:
        grad = grad.sum(dim=widened, keepdim=True)
    return grad
