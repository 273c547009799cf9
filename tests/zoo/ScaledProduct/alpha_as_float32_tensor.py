# mistake: keeps alpha as torch.tensor(alpha) (float32 by default) to save it: every result is scaled by alpha rounded to float32
# feedback: forward returns alpha * x * y
# code: wrong-forward
# rule: values
# fails: values
# score: 1/2
class ScaledProduct(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x, y, alpha):
        return torch.tensor(alpha) * x * y

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, y, alpha = inputs
        ctx.save_for_backward(x, y, torch.tensor(alpha))
        ctx.save_for_forward(x, y, torch.tensor(alpha))

    @staticmethod
    def backward(ctx, grad_output):
        x, y, alpha = ctx.saved_tensors
        return grad_output * alpha * y, grad_output * alpha * x, None

    @staticmethod
    def jvp(ctx, x_t, y_t, alpha_t):
        x, y, alpha = ctx.saved_tensors
        return alpha * (x_t * y + x * y_t)
