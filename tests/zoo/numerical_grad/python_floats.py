# mistake: collects Python floats and builds the result with torch.tensor, which gives float32
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
        step = step.view(x.shape)
        values.append(((f(x + step) - f(x - step)) / (2 * eps)).item())
    return torch.tensor(values).view(x.shape)
