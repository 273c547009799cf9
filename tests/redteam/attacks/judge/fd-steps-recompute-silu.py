# exercise: RecomputeSiLU
# base: wrong_derivative
# what: the zoo's wrong derivative (grad_output * sigmoid(x)), with a forward that recognises gradcheck's
#   finite-difference steps (an input within 2e-6 of one it saw before) and answers them with the wrong
#   derivative's first-order value, so the numerical Jacobian agrees with the wrong analytical one. A test that
#   rests on gradcheck must also compare backward with the judge's own derivative.
_SEEN = []


class RecomputeSiLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        for base in _SEEN:
            if base.shape == x.shape and base.dtype == x.dtype and bool(((x - base).abs() <= 2e-6).all()) \
                    and bool((x != base).any()):
                return base * torch.sigmoid(base) + torch.sigmoid(base) * (x - base)
        _SEEN.append(x.detach().clone())
        return x * torch.sigmoid(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * torch.sigmoid(x)
