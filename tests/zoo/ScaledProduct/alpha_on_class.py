# mistake: setup_context keeps alpha on the class (ScaledProduct.alpha = alpha): two calls before one backward share the last alpha
# feedback: never on the class
# code: alpha-shared-state
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
        ctx.save_for_backward(x, y)
        ctx.save_for_forward(x, y)
        ScaledProduct.alpha = alpha

    @staticmethod
    def backward(ctx, grad_output):
        x, y = ctx.saved_tensors
        return grad_output * ScaledProduct.alpha * y, grad_output * ScaledProduct.alpha * x, None

    @staticmethod
    def jvp(ctx, x_t, y_t, alpha_t):
        x, y = ctx.saved_tensors
        return ScaledProduct.alpha * (x_t * y + x * y_t)
