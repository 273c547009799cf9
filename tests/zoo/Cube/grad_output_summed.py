# mistake: backward multiplies by grad_output.sum() (a scalar) instead of grad_output elementwise
# feedback: times grad_output
# code: wrong-derivative|wrong-jacobian
# rule: derivative
# fails: values jacrev
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
        return grad_output.sum() * 3 * x ** 2
