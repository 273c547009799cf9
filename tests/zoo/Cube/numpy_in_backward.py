# mistake: backward computes 3x^2 with NumPy: autograd cannot differentiate it (double_backward), torch.func cannot run it (transforms), and for a 0-d input NumPy returns a scalar that torch.from_numpy refuses (derivative)
# feedback: differentiable
# code: not-twice-differentiable
# rule: derivative double_backward transforms
# fails: values gradgradcheck grad
# family: leaves-torch
# score: 2/5
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
        local = torch.from_numpy(3 * x.numpy(force=True) ** 2).to(grad_output)
        return grad_output * local
