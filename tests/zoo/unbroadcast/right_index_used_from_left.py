# mistake: walks the dims from the right (zip of reversed shapes) but sums at the index counted from the right, as if it were from the left
# feedback: size 1 in the target
# code: size1-not-summed
# rule: size1
# fails: size1
# score: 2/3
def unbroadcast(grad, shape):
    shape = tuple(shape)
    for k, (g, s) in enumerate(zip(reversed(grad.shape), reversed(shape))):
        if s == 1 and g != 1:
            grad = grad.sum(k, keepdim=True)
    while grad.dim() > len(shape):
        grad = grad.sum(0)
    return grad
