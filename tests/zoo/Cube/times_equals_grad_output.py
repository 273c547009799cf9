# mistake: scales grad_output with *= (grad_output *= 3 * x ** 2), writing into autograd's tensor
# feedback: in place
# code: inplace-grad-output
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
        ctx.save_for_backward(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        grad_output *= 3 * x ** 2
        return grad_output
