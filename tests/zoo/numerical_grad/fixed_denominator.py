# mistake: steps by eps but divides by the default's 2e-6 whatever eps is
# feedback: in proportion to eps
# code: ignores-eps
# rule: central
# fails: central
# score: 3/4
def numerical_grad(f, x, eps=1e-6):
    x = x.detach()
    grad = torch.zeros_like(x)
    flat = grad.view(-1)
    with torch.no_grad():
        for i in range(x.numel()):
            step = torch.zeros_like(x).view(-1)
            step[i] = eps
            step = step.view(x.shape)
            flat[i] = (f(x + step) - f(x - step)) / 2e-6
    return grad
