# style: forward with torch.logsumexp itself, backward with torch.softmax of x (both only of x and the output's size)
class LogSumExp(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x, dim, keepdim):
        return torch.logsumexp(x, dim=dim, keepdim=keepdim)

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, dim, keepdim = inputs
        ctx.dim, ctx.keepdim = dim, keepdim
        out = output if keepdim else output.unsqueeze(dim)
        ctx.save_for_backward(x, output)
        ctx.save_for_forward(x, output)

    @staticmethod
    def backward(ctx, grad_output):
        x, out = ctx.saved_tensors
        if not ctx.keepdim:
            out, grad_output = out.unsqueeze(ctx.dim), grad_output.unsqueeze(ctx.dim)
        return grad_output * (x - out).exp(), None, None

    @staticmethod
    def jvp(ctx, x_t, dim_t, keepdim_t):
        x, out = ctx.saved_tensors
        if not ctx.keepdim:
            out = out.unsqueeze(ctx.dim)
        return ((x - out).exp() * x_t).sum(ctx.dim, keepdim=ctx.keepdim)
