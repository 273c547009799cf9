# mistake: multiplies grad_output in place (grad_output.mul_(3 * x ** 2)) and returns it: grad_output belongs to autograd (after .sum() it is one number broadcast)
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
        return grad_output.mul_(3 * x ** 2)
