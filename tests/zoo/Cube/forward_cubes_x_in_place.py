# mistake: cubes x itself (x.pow_(3)) and returns a copy, keeping the output for backward: the caller's x is changed
# feedback: in place
# code: modifies-input
# rule: derivative
# fails: values
# score: 4/5
class Cube(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x):
        x.pow_(3)
        return x.clone()

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(output)

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        return grad_output * 3 * y.abs() ** (2 / 3)
