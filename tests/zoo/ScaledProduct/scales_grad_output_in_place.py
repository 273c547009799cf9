# mistake: scales grad_output by alpha in place first (grad_output *= ctx.alpha), then multiplies by y and by x: grad_output belongs to autograd
# feedback: in place
# code: inplace-grad-output
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
        ctx.alpha = alpha

    @staticmethod
    def backward(ctx, grad_output):
        x, y = ctx.saved_tensors
        grad_output *= ctx.alpha
        return grad_output * y, grad_output * x, None

    @staticmethod
    def jvp(ctx, x_t, y_t, alpha_t):
        x, y = ctx.saved_tensors
        return ctx.alpha * (x_t * y + x * y_t)
