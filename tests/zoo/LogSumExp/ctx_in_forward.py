# mistake: the notebook-01 style (ctx in forward, no setup_context): works with autograd, refused by torch.func
# feedback: setup_context
# code: no-setup-context
# rule: stability
# fails: stability vmap forward_mode
# family: masked-row-nan|no-jvp
# score: 7/10
class LogSumExp(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(ctx, x, dim, keepdim):
        m = x.amax(dim=dim, keepdim=True)
        out = m + torch.log(torch.exp(x - m).sum(dim=dim, keepdim=True))
        out = out if keepdim else out.squeeze(dim)
        ctx.dim = dim
        ctx.keepdim = keepdim
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        x, out = ctx.saved_tensors
        if not ctx.keepdim:
            out = out.unsqueeze(ctx.dim)
            grad_output = grad_output.unsqueeze(ctx.dim)
        return grad_output * torch.exp(x - out), None, None
