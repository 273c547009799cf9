# mistake: multiplies grad_output in place by sigmoid(x) (grad_output.mul_(...)) and returns it: grad_output belongs to autograd
# feedback: in place
# code: inplace-grad-output
# rule: derivative
# fails: values
# score: 5/6
class Softplus(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x):
        return x.clamp(min=0) + torch.log1p(torch.exp(-x.abs()))

    @staticmethod
    def setup_context(ctx, inputs, output):
        (x,) = inputs
        ctx.save_for_backward(x)
        ctx.save_for_forward(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output.mul_(torch.sigmoid(x))

    @staticmethod
    def jvp(ctx, x_t):
        (x,) = ctx.saved_tensors
        return x_t * torch.sigmoid(x)
