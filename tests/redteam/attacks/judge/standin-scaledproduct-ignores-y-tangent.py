# exercise: ScaledProduct
# base: ignores_y_tangent
# what: recognises the grader's stand-in ctx and pushes y's tangent through only for it; with autograd's own node
#   as ctx (forward-mode AD) its jvp ignores y_t (the zoo's ignores_y_tangent). `{JUDGED}` is replaced by each way
#   of recognising the stand-in.
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
        return grad_output * ctx.alpha * y, grad_output * ctx.alpha * x, None

    @staticmethod
    def jvp(ctx, x_t, y_t, alpha_t):
        x, y = ctx.saved_tensors
        if _judged(ctx):
            return ctx.alpha * (x_t * y + x * y_t)
        return ctx.alpha * x_t * y


def _judged(ctx):
    return {JUDGED}
