# style: set_materialize_grads(False), so jvp sees None for a missing tangent and skips it; a helper; a print
def _term(tangent, other, alpha):
    return None if tangent is None else alpha * tangent * other


class ScaledProduct(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x, y, alpha):
        return x * y * alpha

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, y, alpha = inputs
        ctx.set_materialize_grads(False)
        ctx.save_for_backward(x, y)
        ctx.save_for_forward(x, y)
        ctx.alpha = float(alpha)

    @staticmethod
    def backward(ctx, grad_output):
        x, y = ctx.saved_tensors
        if grad_output is None:
            return None, None, None
        return ctx.alpha * y * grad_output, ctx.alpha * x * grad_output, None

    @staticmethod
    def jvp(ctx, x_t, y_t, _alpha_t):
        x, y = ctx.saved_tensors
        terms = [t for t in (_term(x_t, y, ctx.alpha), _term(y_t, x, ctx.alpha)) if t is not None]
        return sum(terms[1:], terms[0]) if terms else torch.zeros_like(x)


print(ScaledProduct.apply(torch.ones(2), torch.full((2,), 3.0), 2.0))
