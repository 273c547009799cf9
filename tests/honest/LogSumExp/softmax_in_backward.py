# style: torch.logsumexp in forward, softmax in backward and jvp,
# only x saved for forward, and a needs_input_grad check
class LogSumExp(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x, dim, keepdim):
        return torch.logsumexp(x, dim, keepdim)

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, dim, keepdim = inputs
        ctx.dim, ctx.keepdim = dim, keepdim
        ctx.save_for_backward(x, output)
        ctx.save_for_forward(x)

    @staticmethod
    def backward(ctx, grad_output):
        x, out = ctx.saved_tensors
        if not ctx.needs_input_grad[0]:
            return None, None, None
        if not ctx.keepdim:
            grad_output = grad_output.unsqueeze(ctx.dim)
        return grad_output * torch.softmax(x, ctx.dim), None, None

    @staticmethod
    def jvp(ctx, x_t, dim_t, keepdim_t):
        (x,) = ctx.saved_tensors
        return (torch.softmax(x, ctx.dim) * x_t).sum(dim=ctx.dim, keepdim=ctx.keepdim)
