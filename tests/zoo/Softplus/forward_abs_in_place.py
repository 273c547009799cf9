# mistake: forward computes |x| in place (x.abs_()) for the stable formula: the caller's x is changed, and setup_context saves the changed x
# feedback: in place
# code: modifies-input|inplace-error
# rule: derivative
# fails: values gradcheck
# score: 4/6
class Softplus(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x):
        relu = x.clamp(min=0)
        return relu + torch.log1p(torch.exp(-x.abs_()))

    @staticmethod
    def setup_context(ctx, inputs, output):
        (x,) = inputs
        ctx.save_for_backward(x)
        ctx.save_for_forward(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * torch.sigmoid(x)

    @staticmethod
    def jvp(ctx, x_t):
        (x,) = ctx.saved_tensors
        return x_t * torch.sigmoid(x)
