# style: its own vmap staticmethod instead of generate_vmap_rule, and .pow()
class Cube(torch.autograd.Function):
    @staticmethod
    def forward(x):
        return x.pow(3)

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return 3 * x.pow(2) * grad_output

    @staticmethod
    def vmap(info, in_dims, x):
        # elementwise: the batch dimension goes through unchanged
        return Cube.apply(x), in_dims[0]
