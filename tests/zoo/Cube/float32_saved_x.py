# mistake: setup_context saves x.float() ("to save memory"): the gradient of a float64 x is computed from float32 values
# feedback: float32
# code: float32-precision|not-twice-differentiable
# rule: derivative double_backward
# fails: gradgradcheck jacrev
# score: 3/5
class Cube(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x):
        return x ** 3

    @staticmethod
    def setup_context(ctx, inputs, output):
        (x,) = inputs
        ctx.save_for_backward(x.float())

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 3 * x.to(grad_output.dtype) ** 2
