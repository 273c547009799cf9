# mistake: setup_context saves output.detach() (only a number for backward): second derivatives lose the path through the output
# feedback: second derivatives are wrong or unavailable
# code: not-twice-differentiable
# rule: double_backward
# fails: gradgradcheck
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
        ctx.dim = dim
        ctx.keepdim = keepdim
        ctx.save_for_backward(x, output.detach())  # the output is only a number for backward
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
