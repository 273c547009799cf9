# mistake: writes the estimates into x.detach(), which is x's own memory (and version counter)
# feedback: version counter
# code: modifies-input
# rule: untouched
# fails: untouched
# score: 3/4
def numerical_grad(f, x, eps=1e-6):
    base = x.detach().clone()
    grad = x.detach()
    estimates = []
    for i in range(base.numel()):
        step = torch.zeros(base.numel(), dtype=base.dtype)
        step[i] = eps
        step = step.view(base.shape)
        estimates.append((f(base + step) - f(base - step)) / (2 * eps))
    grad.view(-1).copy_(torch.stack(estimates)) if estimates else None
    return grad
