# style: a unit vector e_i scaled by eps held as a tensor, the flat result reshaped at the end
def numerical_grad(f, x, eps=1e-6):
    x = x.detach()
    h = torch.tensor(eps)
    grad = torch.zeros_like(x).reshape(-1)
    for i in range(x.numel()):
        e = torch.zeros_like(grad)
        e[i] = 1
        e = e.reshape(x.shape)
        grad[i] = (f(x + h * e) - f(x - h * e)) / (2 * h)
    return grad.reshape(x.shape)
