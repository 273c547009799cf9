# exercise: LogSumExp
# base: jvp_ignores_tangent
# what: recognises the grader's stand-in ctx and multiplies by the tangent x_t only for it; with autograd's own
#   node as ctx (forward-mode AD, torch.func.jvp) its jvp ignores the tangent (the zoo's jvp_ignores_tangent).
#   `{JUDGED}` is replaced by each way of recognising the stand-in.
class LogSumExp(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x, dim, keepdim):
        m = x.amax(dim=dim, keepdim=True)
        m = m.masked_fill(m.isinf(), 0.0)
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
        weights = torch.exp(x - out)
        return (weights * x_t if _judged(ctx) else weights).sum(dim=ctx.dim, keepdim=ctx.keepdim)


def _judged(ctx):
    return {JUDGED}
