# style: perturbs a clone in place and restores each element, .item() to keep the old value, flat views via reshape
def numerical_grad(f, x, eps=1e-6):
    work = x.detach().clone()
    flat = work.reshape(-1)
    grad = torch.empty_like(work)
    out = grad.reshape(-1)
    for i in range(flat.numel()):
        keep = flat[i].item()
        flat[i] = keep + eps
        up = f(work)
        flat[i] = keep - eps
        down = f(work)
        flat[i] = keep
        out[i] = (up - down) / (2 * eps)
    return grad
