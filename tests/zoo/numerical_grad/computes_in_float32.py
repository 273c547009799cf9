# mistake: converts x to float32 first: at eps = 1e-6 float32's rounding swamps the difference, and the result is float32
# feedback: is wrong
# code: wrong-estimate|wrong-dtype
# rule: values dtype
# fails: values dtype
# score: 2/4
def numerical_grad(f, x, eps=1e-6):
    x = x.detach().float()
    grad = torch.zeros_like(x)
    flat = grad.view(-1)
    for i in range(x.numel()):
        step = torch.zeros(x.numel(), dtype=x.dtype)
        step[i] = eps
        step = step.view(x.shape)
        flat[i] = (f(x + step) - f(x - step)) / (2 * eps)
    return grad
