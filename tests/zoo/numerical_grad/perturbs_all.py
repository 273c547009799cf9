# mistake: perturbs every element at once (a directional derivative), not one element at a time
# feedback: e_i
# code: wrong-estimate
# rule: values
# fails: values
# score: 3/4
def numerical_grad(f, x, eps=1e-6):
    x = x.detach()
    return torch.full_like(x, ((f(x + eps) - f(x - eps)) / (2 * eps)).item())
