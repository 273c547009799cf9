# style: one dimension at a time in a loop, from the left, with a try-out print after it
def unbroadcast(grad, shape):
    shape = tuple(shape)
    while grad.dim() > len(shape):
        grad = grad.sum(dim=0)
    for dim, size in enumerate(shape):
        if size == 1 and grad.shape[dim] != 1:
            grad = grad.sum(dim=dim, keepdim=True)
    return grad


print(unbroadcast(torch.ones(4, 2, 3), (2, 1)))
