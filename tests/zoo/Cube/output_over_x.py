# mistake: the derivative from the saved output, 3 * output / x: the same as 3 * x**2 except at x = 0, where 0 / 0 is NaN
# feedback: nan
# code: wrong-derivative
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
        ctx.save_for_backward(x, output)

    @staticmethod
    def backward(ctx, grad_output):
        x, output = ctx.saved_tensors
        return grad_output * 3 * output / x
