# mistake: subtracts the row max from x in place for the exponentials (x.sub_(m)) and adds it back afterwards: the caller's x is changed (rounding, and its version)
# feedback: in place
# code: modifies-input
# rule: values
# fails: values gradcheck
# score: 7/10
class LogSumExp(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x, dim, keepdim):
        m = x.amax(dim=dim, keepdim=True)
        m = m.masked_fill(m.isinf(), 0.0)
        out = m + torch.log(torch.exp(x.sub_(m)).sum(dim=dim, keepdim=True))
        x.add_(m)
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
