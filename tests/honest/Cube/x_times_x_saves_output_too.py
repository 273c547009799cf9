# style: forward x * x * x, setup_context saves x and the output, backward 3 * y / x replaced by 3 * x * x
class Cube(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x):
        return x * x * x

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0], output)

    @staticmethod
    def backward(ctx, grad_output):
        x, _ = ctx.saved_tensors
        return 3 * x * x * grad_output
