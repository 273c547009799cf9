# mistake: setup_context keeps the inputs tuple itself on ctx (ctx.inputs = inputs) and backward reads x from it
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
        ctx.inputs = inputs

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.inputs
        return grad_output * 3 * x ** 2
