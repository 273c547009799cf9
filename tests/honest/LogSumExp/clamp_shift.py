# shifts by the max clamped to the dtype's most negative finite number (a fully masked row: log(0) = -inf), computed
# on x.detach() (the shift is a constant: its derivative cancels)
class LogSumExp(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x, dim, keepdim):
        m = x.detach().amax(dim=dim, keepdim=True).clamp(min=torch.finfo(x.dtype).min)   # a finite shift
        out = m + torch.log(torch.exp(x - m).sum(dim=dim, keepdim=True))
        return out if keepdim else out.squeeze(dim)

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, dim, keepdim = inputs
        ctx.dim = dim
        ctx.keepdim = keepdim
        ctx.save_for_backward(x, output)
        ctx.save_for_forward(x, output)

    @staticmethod
    def backward(ctx, grad_output):
        x, out = ctx.saved_tensors
        if not ctx.keepdim:
            out = out.unsqueeze(ctx.dim)
            grad_output = grad_output.unsqueeze(ctx.dim)
        return grad_output * torch.exp(x - out), None, None

    @staticmethod
    def jvp(ctx, x_t, dim_t, keepdim_t):
        x, out = ctx.saved_tensors
        if not ctx.keepdim:
            out = out.unsqueeze(ctx.dim)
        return (torch.exp(x - out) * x_t).sum(dim=ctx.dim, keepdim=ctx.keepdim)
