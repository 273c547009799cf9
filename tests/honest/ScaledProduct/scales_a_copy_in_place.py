# style: scales a copy of grad_output by alpha in place (g = grad_output.clone(); g *= alpha): the copy is backward's own
class ScaledProduct(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x, y, alpha):
        return alpha * x * y

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, y, alpha = inputs
        ctx.save_for_backward(x, y)
        ctx.save_for_forward(x, y)
        ctx.alpha = alpha

    @staticmethod
    def backward(ctx, grad_output):
        x, y = ctx.saved_tensors
        g = grad_output.clone()
        g *= ctx.alpha
        return g * y, g * x, None

    @staticmethod
    def jvp(ctx, x_t, y_t, alpha_t):
        x, y = ctx.saved_tensors
        return ctx.alpha * (x_t * y + x * y_t)
