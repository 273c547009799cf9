# style: leading dims summed one at a time, then the widened ones from the last to the first without keepdim (the
# indices still to come do not shift), and a reshape to the target
def unbroadcast(grad, shape):
    shape = tuple(shape)
    while grad.dim() > len(shape):
        grad = grad.sum(0)
    for i in reversed(range(len(shape))):
        if shape[i] == 1 and grad.shape[i] != 1:
            grad = grad.sum(i)
    return grad.reshape(shape)
