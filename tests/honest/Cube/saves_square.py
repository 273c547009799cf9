# style: setup_context saves x*x (a fresh tensor made of torch ops, so differentiable twice), backward 3 * x2
class Cube(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x):
        return x * x * x

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, = inputs
        ctx.save_for_backward(x)

    @staticmethod
    def backward(ctx, grad_output):
        x, = ctx.saved_tensors
        x2 = torch.square(x)
        return 3.0 * x2 * grad_output
