# mistake: loops over range(len(x)) and indexes x[i]: only the first dimension, and len() of a 0-d x raises
# feedback: 0-d x included
# code: crashed
# rule: values
# fails: values
# score: 3/4
def numerical_grad(f, x, eps=1e-6):
    x = x.detach()
    grad = torch.zeros_like(x)
    for i in range(len(x)):
        step = torch.zeros_like(x)
        step[i] = eps
        grad[i] = (f(x + step) - f(x - step)) / (2 * eps)
    return grad
