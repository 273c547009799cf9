# mistake: a one-sided (forward) difference (f(x + eps) - f(x)) / eps instead of the central difference
# feedback: central difference
# code: one-sided-difference
# rule: central
# fails: central
# score: 3/4
def numerical_grad(f, x, eps=1e-6):
    x = x.detach()
    grad = torch.zeros(x.shape, dtype=x.dtype)
    flat = grad.view(-1)
    base = f(x)
    for i in range(x.numel()):
        step = torch.zeros(x.numel(), dtype=x.dtype)
        step[i] = eps
        flat[i] = (f(x + step.view(x.shape)) - base) / eps
    return grad
