# mistake: jvp multiplies the tangents together (alpha * x_t * y_t) instead of the product rule
# feedback: ignores y_t
# code: jvp-ignores-tangent
# rule: jvp
# fails: jvp
# score: 1/2
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
        return ctx.alpha * x_t * y_t
