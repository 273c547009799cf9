# mistake: adds the sums into torch.zeros(shape), which is float32 whatever grad's dtype (BroadcastMul, which calls it, keeps its points)
# feedback: keep grad's dtype
# code: wrong-dtype
# rule: leading
# fails: values
# score: 2/3
def unbroadcast(grad, shape):
    shape = tuple(shape)
    extra = grad.dim() - len(shape)
    if extra > 0:
        grad = grad.sum(dim=tuple(range(extra)))
    widened = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    if widened:
        grad = grad.sum(dim=widened, keepdim=True)
    out = torch.zeros(shape)
    out += grad
    return out
