# mistake: only removes the extra leading dimensions and forgets the widened size-1 dimensions
# feedback: size 1 in the target
# code: size1-not-summed
# rule: size1
# fails: size1
# score: 2/3
def unbroadcast(grad, shape):
    extra = grad.dim() - len(shape)
    if extra > 0:
        grad = grad.sum(dim=tuple(range(extra)))
    return grad
