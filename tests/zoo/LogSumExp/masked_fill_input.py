# mistake: masked entries are replaced by -1e30 before the shift: a fully masked row gives a finite number instead of -inf
# feedback: with masked (-inf) entries
# code: wrong-forward
# rule: stability
# fails: stability
# score: 9/10
class LogSumExp(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x, dim, keepdim):
        x = x.masked_fill(x == float("-inf"), -1e30)   # masked entries: very negative, but finite
        m = x.amax(dim=dim, keepdim=True)
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
