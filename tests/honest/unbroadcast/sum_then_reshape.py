# style: sums the leading dims, then every size-1 target dim without keepdim, and reshapes to the target
def unbroadcast(grad, shape):
    shape = tuple(shape)
    extra = grad.dim() - len(shape)
    if extra:
        grad = grad.sum(dim=tuple(range(extra)))
    ones = [i for i, s in enumerate(shape) if s == 1]
    if ones:
        grad = grad.sum(dim=ones)
    return grad.reshape(shape)
