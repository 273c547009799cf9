# style: half a step to each side divided by eps (the same central difference), written with torch.stack
def numerical_grad(f, x, eps=1e-6):
    base = x.detach().reshape(-1)
    estimates = []
    for i in range(base.numel()):
        e = torch.zeros_like(base)
        e[i] = eps / 2
        up = f((base + e).reshape(x.shape))
        down = f((base - e).reshape(x.shape))
        estimates.append((up - down) / eps)
    if not estimates:
        return torch.zeros_like(x)
    return torch.stack(estimates).reshape(x.shape).to(x.dtype)
