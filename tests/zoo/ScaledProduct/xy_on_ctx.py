# mistake: setup_context keeps x and y as plain ctx attributes for backward (ctx.x, ctx.y = x, y) and saves them only for forward mode
# feedback: save_for_backward
# code: not-saved-for-backward
# rule: values
# fails: values
# score: 1/2
class ScaledProduct(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x, y, alpha):
        return alpha * x * y

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, y, alpha = inputs
        ctx.x, ctx.y = x, y
        ctx.save_for_forward(x, y)
        ctx.alpha = alpha

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.alpha * ctx.y, grad_output * ctx.alpha * ctx.x, None

    @staticmethod
    def jvp(ctx, x_t, y_t, alpha_t):
        x, y = ctx.saved_tensors
        return ctx.alpha * (x_t * y + x * y_t)
