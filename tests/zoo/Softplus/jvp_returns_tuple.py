# mistake: jvp returns a one-element tuple (x_t * sigmoid(x),), as if it returned one tangent per input like backward
# feedback: should be a tensor, got tuple
# code: not-a-tensor
# rule: jvp
# fails: jvp jacfwd
# score: 4/6
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
        return grad_output * torch.sigmoid(x)

    @staticmethod
    def jvp(ctx, x_t):
        (x,) = ctx.saved_tensors
        return (x_t * torch.sigmoid(x),)
