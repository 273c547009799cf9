# mistake: sums the widened size-1 dims one at a time without keepdim, so the later indices shift, then reshapes
# feedback: IndexError
# code: unbroadcast-raised
# rule: size1
# fails: size1
# score: 2/3
def unbroadcast(grad, shape):
    shape = tuple(shape)
    while grad.dim() > len(shape):
        grad = grad.sum(0)
    for i, n in enumerate(shape):
        if n == 1 and grad.shape[i] != 1:
            grad = grad.sum(i)
    return grad.reshape(shape)
