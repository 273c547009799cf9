# mistake: sums in NumPy and converts back with torch.from_numpy, which refuses NumPy's scalar for a 0-d target
# feedback: expected np.ndarray
# code: unbroadcast-raised
# rule: leading
# fails: values
# score: 2/3
import numpy as np


def unbroadcast(grad, shape):
    shape = tuple(shape)
    g = grad.detach().numpy()
    extra = g.ndim - len(shape)
    if extra > 0:
        g = g.sum(axis=tuple(range(extra)))
    widened = tuple(i for i, n in enumerate(shape) if n == 1 and g.shape[i] != 1)
    if widened:
        g = g.sum(axis=widened, keepdims=True)
    return torch.from_numpy(g)
