# mistake: saves the output and recovers x as its cube root y ** (1/3), NaN for negative x
# feedback: 3 * x**2
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
        ctx.save_for_backward(output)

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        return grad_output * 3 * (y ** (1.0 / 3.0)) ** 2
