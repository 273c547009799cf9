# mistake: builds one step tensor outside the loop and never clears it, so step i also moves every earlier element
# feedback: e_i is 1 at position i
# code: wrong-estimate
# rule: values
# fails: values
# score: 3/4
def numerical_grad(f, x, eps=1e-6):
    x = x.detach()
    grad = torch.zeros_like(x)
    step = torch.zeros_like(x)
    with torch.no_grad():
        for i in range(x.numel()):
            step.view(-1)[i] = eps
            grad.view(-1)[i] = (f(x + step) - f(x - step)) / (2 * eps)
    return grad
