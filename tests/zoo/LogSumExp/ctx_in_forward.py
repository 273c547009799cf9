# mistake: the notebook-01 style (ctx in forward, no setup_context): works with autograd, refused by torch.func
# feedback: setup_context
# code: no-setup-context
# rule: forward_mode
# fails: vmap forward_mode
# family: wrong-signature
# score: 8/10
class LogSumExp(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(ctx, x, dim, keepdim):
        m = x.amax(dim=dim, keepdim=True)
        m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
        out = m + torch.log(torch.exp(x - m).sum(dim=dim, keepdim=True))
        out = out if keepdim else out.squeeze(dim)
        ctx.dim = dim
        ctx.keepdim = keepdim
        ctx.save_for_backward(x, out)
        ctx.save_for_forward(x, out)
        return out

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
        full = out if ctx.keepdim else out.unsqueeze(ctx.dim)
        return (torch.exp(x - full) * x_t).sum(dim=ctx.dim, keepdim=ctx.keepdim)
