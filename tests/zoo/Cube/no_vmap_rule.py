# mistake: split style, but without generate_vmap_rule = True, so vmap cannot batch it
# feedback: generate_vmap_rule
# code: no-vmap-rule
# rule: transforms
# fails: vmap grad
# score: 3/5
class Cube(torch.autograd.Function):
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
        return grad_output * 3 * x ** 2
