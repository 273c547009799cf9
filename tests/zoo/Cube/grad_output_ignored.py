# mistake: backward returns 3 x^2, ignoring grad_output
# feedback: times grad_output
# code: wrong-derivative|wrong-jacobian
# rule: derivative
# fails: jacrev values
# score: 3/5
class Cube(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x):
        return x ** 3

    @staticmethod
    def setup_context(ctx, inputs, output):
        (x,) = inputs
        ctx.save_for_backward(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return 3 * x ** 2
