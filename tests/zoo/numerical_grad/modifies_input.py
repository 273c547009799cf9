# mistake: perturbs x itself in place (under no_grad) and restores it afterwards
# feedback: in place
# code: modifies-input
# rule: untouched
# fails: untouched
# score: 3/4
def numerical_grad(f, x, eps=1e-6):
    grad = torch.zeros(x.shape, dtype=x.dtype)
    flat_grad = grad.view(-1)
    with torch.no_grad():
        flat = x.view(-1)
        for i in range(x.numel()):
            old = flat[i].item()
            flat[i] = old + eps
            plus = f(x)
            flat[i] = old - eps
            minus = f(x)
            flat[i] = old
            flat_grad[i] = (plus - minus) / (2 * eps)
    return grad
