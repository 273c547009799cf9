# style: tangents handled one at a time with None checks, alpha via ctx, mul ops
class ScaledProduct(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x, y, alpha):
        return torch.mul(x, y) * alpha

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, y, alpha = inputs
        ctx.alpha = float(alpha)
        ctx.save_for_backward(x, y)
        ctx.save_for_forward(x, y)

    @staticmethod
    def backward(ctx, grad_output):
        x, y = ctx.saved_tensors
        gx = gy = None
        if ctx.needs_input_grad[0]:
            gx = grad_output * y * ctx.alpha
        if ctx.needs_input_grad[1]:
            gy = grad_output * x * ctx.alpha
        return gx, gy, None

    @staticmethod
    def jvp(ctx, x_t, y_t, alpha_t):
        x, y = ctx.saved_tensors
        out = torch.zeros_like(x)
        if x_t is not None:
            out = out + x_t * y
        if y_t is not None:
            out = out + x * y_t
        return ctx.alpha * out
