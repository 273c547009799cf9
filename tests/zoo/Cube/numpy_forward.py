# mistake: forward computes the cube with NumPy: vmap (generate_vmap_rule) cannot run it on batched tensors (transforms), and for a 0-d input NumPy returns a scalar that torch.from_numpy refuses (derivative)
# feedback: leaves torch
# code: leaves-torch
# rule: derivative transforms
# fails: values vmap grad
# score: 2/5
class Cube(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x):
        return torch.from_numpy(x.numpy(force=True) ** 3)

    @staticmethod
    def setup_context(ctx, inputs, output):
        (x,) = inputs
        ctx.save_for_backward(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 3 * x ** 2
