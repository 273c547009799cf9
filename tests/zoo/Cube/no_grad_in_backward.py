# mistake: computes the derivative under torch.no_grad() in backward, so the second derivative is lost
# feedback: no torch.no_grad()
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
        with torch.no_grad():
            d = 3 * x ** 2
        return grad_output * d
