# style: sums keepdim over every size-1 target dim, widened or not
def unbroadcast(grad, shape):
    shape = tuple(shape)
    for _ in range(grad.dim() - len(shape)):
        grad = grad.sum(0)
    for i in range(len(shape)):
        if shape[i] == 1:
            grad = grad.sum(i, keepdim=True)
    return grad
