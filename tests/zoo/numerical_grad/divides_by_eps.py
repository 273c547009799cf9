# mistake: central difference divided by eps instead of 2 * eps (twice the gradient)
# feedback: 2 * eps
# code: divides-by-eps
# rule: values
# fails: values
# score: 3/4
def numerical_grad(f, x, eps=1e-6):
    x = x.detach()
    grad = torch.zeros(x.shape, dtype=x.dtype)
    flat = grad.view(-1)
    for i in range(x.numel()):
        step = torch.zeros(x.numel(), dtype=x.dtype)
        step[i] = eps
        step = step.view(x.shape)
        flat[i] = (f(x + step) - f(x - step)) / eps
    return grad
