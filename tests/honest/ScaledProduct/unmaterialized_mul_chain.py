# style: torch.mul chains, tangents guarded for None (set_materialize_grads(False) too), alpha read from inputs in setup_context by name
class ScaledProduct(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x, y, alpha):
        return torch.mul(torch.mul(x, y), alpha)

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, y, alpha = inputs
        ctx.set_materialize_grads(False)
        ctx.save_for_backward(x, y)
        ctx.save_for_forward(x, y)
        ctx.alpha = float(alpha)

    @staticmethod
    def backward(ctx, grad_output):
        if grad_output is None:
            return None, None, None
        x, y = ctx.saved_tensors
        scaled = grad_output * ctx.alpha
        return scaled * y, scaled * x, None

    @staticmethod
    def jvp(ctx, x_t, y_t, alpha_t):
        x, y = ctx.saved_tensors
        out = torch.zeros_like(x)
        if x_t is not None:
            out = out + x_t * y
        if y_t is not None:
            out = out + x * y_t
        return ctx.alpha * out
