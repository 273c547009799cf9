# mistake: treats a dim as widened only where grad's size is > 1, so a size-1 dim broadcast to size 0 keeps size 0
# feedback: size 1 in the target
# code: size1-not-summed
# rule: size1
# fails: size1
# score: 2/3
def unbroadcast(grad, shape):
    shape = tuple(shape)
    while grad.dim() > len(shape):
        grad = grad.sum(0)
    for i, size in enumerate(shape):
        if size == 1 and grad.shape[i] > 1:
            grad = grad.sum(i, keepdim=True)
    return grad
