# style: setup_context saves alpha * x and alpha * y (intermediates of its own) for both directions; alpha never kept
class ScaledProduct(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x, y, alpha):
        return x * y * alpha

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, y, alpha = inputs
        ax, ay = alpha * x, alpha * y
        ctx.save_for_backward(ax, ay)
        ctx.save_for_forward(ax, ay)

    @staticmethod
    def backward(ctx, grad_output):
        ax, ay = ctx.saved_tensors
        return grad_output * ay, grad_output * ax, None

    @staticmethod
    def jvp(ctx, x_t, y_t, alpha_t):
        ax, ay = ctx.saved_tensors
        return x_t * ay + ax * y_t
