# style: forward returns F.softplus(x), the library's stable value (the notebook says it is fine); jvp by the rule
class Softplus(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x):
        return F.softplus(x)

    @staticmethod
    def setup_context(ctx, inputs, output):
        (x,) = inputs
        ctx.save_for_backward(x)
        ctx.save_for_forward(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return torch.sigmoid(x) * grad_output

    @staticmethod
    def jvp(ctx, x_t):
        (x,) = ctx.saved_tensors
        return torch.sigmoid(x) * x_t
