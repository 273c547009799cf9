# style: sums one dim at a time, re-inserting each size-1 dim with view
def unbroadcast(grad, shape):
    while grad.dim() > len(shape):
        grad = grad.sum(0)
    for i, size in enumerate(shape):
        if size == 1 and grad.shape[i] != 1:
            grad = grad.sum(i).view(*grad.shape[:i], 1, *grad.shape[i + 1:])
    return grad
