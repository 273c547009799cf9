# mistake: perturbs x.data in place and steps it back: the rounding leaves x changed, and the version counter does not show it
# feedback: through .data
# code: modifies-input
# rule: untouched
# fails: untouched
# score: 3/4
def numerical_grad(f, x, eps=1e-6):
    flat = x.data.view(-1)
    grad = torch.zeros_like(x)
    g = grad.view(-1)
    for i in range(flat.numel()):
        flat[i] += eps
        up = f(x)
        flat[i] -= 2 * eps
        down = f(x)
        flat[i] += eps
        g[i] = (up - down) / (2 * eps)
    return grad
