# mistake: forward computes the cube with NumPy, which vmap (generate_vmap_rule) cannot run on batched tensors
# feedback: leaves torch
# code: leaves-torch
# rule: derivative
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
