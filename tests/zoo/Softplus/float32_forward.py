# mistake: forward computes softplus in float32 (.float()) and casts the result back to x's dtype
# feedback: forward computes something in float32
# code: float32-precision
# rule: derivative
# fails: values gradcheck
# score: 4/6
class Softplus(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x):
        x32 = x.float()
        return (x32.clamp(min=0) + torch.log1p(torch.exp(-x32.abs()))).to(x.dtype)

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
