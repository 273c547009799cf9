# mistake: perturbs x.data in place and puts each saved value back exactly: x is changed while f runs, and neither its values nor its version counter show it afterwards
# feedback: not even temporarily
# code: modifies-input
# rule: untouched
# fails: untouched
# score: 3/4
def numerical_grad(f, x, eps=1e-6):
    flat = x.data.view(-1)
    grad = torch.zeros_like(x.data)
    out = grad.view(-1)
    for i in range(flat.numel()):
        keep = flat[i].clone()
        flat[i] = keep + eps
        up = f(x)
        flat[i] = keep - eps
        down = f(x)
        flat[i] = keep
        out[i] = (up - down) / (2 * eps)
    return grad
