# mistake: backward computes in float32 (.float()) and casts the gradient back to x's dtype
# feedback: backward computes something in float32
# code: float32-precision
# rule: derivative
# fails: jacrev
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
        return (grad_output.float() * 3 * x.float() ** 2).to(x.dtype)   # float32 to be fast
