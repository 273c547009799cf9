# mistake: keeps the softmax exp(x - output) for backward in a dict on ctx: a second x-sized tensor kept alive
# feedback: ctx.cache
# code: saves-too-much
# rule: memory
# fails: memory
# score: 9/10
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
        ctx.dim, ctx.keepdim = dim, keepdim
        full = output if keepdim else output.unsqueeze(dim)
        ctx.cache = {"p": torch.exp(x - full)}
        ctx.save_for_backward(x, output)
        ctx.save_for_forward(x, output)

    @staticmethod
    def backward(ctx, grad_output):
        x, out = ctx.saved_tensors
        if not ctx.keepdim:
            grad_output = grad_output.unsqueeze(ctx.dim)
        # recomputed only when a second derivative is wanted
        p = torch.exp(x - (out if ctx.keepdim else out.unsqueeze(ctx.dim))) if torch.is_grad_enabled()             else ctx.cache["p"]
        return grad_output * p, None, None

    @staticmethod
    def jvp(ctx, x_t, dim_t, keepdim_t):
        x, out = ctx.saved_tensors
        if not ctx.keepdim:
            out = out.unsqueeze(ctx.dim)
        return (torch.exp(x - out) * x_t).sum(dim=ctx.dim, keepdim=ctx.keepdim)
