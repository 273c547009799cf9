# mistake: returns the flattened gradient instead of reshaping it to x's shape
# feedback: shape
# code: wrong-shape
# rule: dtype
# fails: dtype
# score: 3/4
def numerical_grad(f, x, eps=1e-6):
    x = x.detach()
    grad = torch.zeros(x.numel(), dtype=x.dtype)
    for i in range(x.numel()):
        step = torch.zeros(x.numel(), dtype=x.dtype)
        step[i] = eps
        step = step.view(x.shape)
        grad[i] = (f(x + step) - f(x - step)) / (2 * eps)
    return grad
