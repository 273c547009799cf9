# mistake: turns each estimate into a Python float with .item() and builds the result with torch.tensor(values): float32
# feedback: dtype
# code: wrong-dtype
# rule: dtype
# fails: dtype
# score: 3/4
def numerical_grad(f, x, eps=1e-6):
    x = x.detach()
    values = []
    for i in range(x.numel()):
        step = torch.zeros(x.numel(), dtype=x.dtype)
        step[i] = eps
        step = step.reshape(x.shape)
        values.append(((f(x + step) - f(x - step)) / (2 * eps)).item())
    return torch.tensor(values).reshape(x.shape)
