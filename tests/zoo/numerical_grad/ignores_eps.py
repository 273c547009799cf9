# mistake: ignores the eps argument and always uses a fixed step of 1e-6
# feedback: eps argument
# code: ignores-eps
# rule: central
# fails: central
# score: 3/4
def numerical_grad(f, x, eps=1e-6):
    h = 1e-6
    x = x.detach()
    grad = torch.zeros(x.shape, dtype=x.dtype)
    flat = grad.view(-1)
    for i in range(x.numel()):
        step = torch.zeros(x.numel(), dtype=x.dtype)
        step[i] = h
        step = step.view(x.shape)
        flat[i] = (f(x + step) - f(x - step)) / (2 * h)
    return grad
