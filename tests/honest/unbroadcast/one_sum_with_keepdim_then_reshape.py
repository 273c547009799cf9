# style: an early return when the shapes match (torch.Size compared with a tuple), else one sum over the leading
# and size-1 dims with keepdim=True and a reshape
def unbroadcast(grad, shape):
    if grad.shape == tuple(shape):
        return grad
    lead = grad.dim() - len(shape)
    dims = list(range(lead)) + [lead + i for i, n in enumerate(shape) if n == 1]
    return grad.sum(dim=dims, keepdim=True).reshape(shape) if dims else grad
