# mistake: backward reads x.data (3 * x.data ** 2): the first derivative is right, but it has no history to differentiate again
# feedback: differentiable torch operations
# code: not-twice-differentiable
# rule: double_backward
# fails: gradgradcheck
# score: 4/5
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
        return grad_output * 3 * x.data ** 2
