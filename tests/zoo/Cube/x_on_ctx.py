# mistake: setup_context keeps x as a plain attribute (ctx.x = x) instead of ctx.save_for_backward(x): no version counter guards it
# feedback: save_for_backward
# code: not-saved-for-backward
# rule: derivative
# fails: values
# score: 4/5
class Cube(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x):
        return x ** 3

    @staticmethod
    def setup_context(ctx, inputs, output):
        (x,) = inputs
        ctx.x = x

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * 3 * ctx.x ** 2
