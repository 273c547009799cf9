# mistake: forward scales x itself by alpha (x.mul_(alpha)) and returns x * y: the caller's x is changed
# feedback: in place
# code: modifies-input
# rule: values
# fails: values
# score: 1/2
class ScaledProduct(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x, y, alpha):
        return x.mul_(alpha) * y

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
        return ctx.alpha * (x_t * y + x * y_t)
