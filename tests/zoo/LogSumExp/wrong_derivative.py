# mistake: backward returns exp(x) (forgets to divide by the sum: no - output), which is not the softmax (values) and overflows for entries of size 1e4 (stability)
# feedback: softmax
# code: wrong-derivative
# rule: values stability
# fails: values gradcheck stability
# family: unstable-backward
# score: 6/10
class LogSumExp(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x, dim, keepdim):
        m = x.amax(dim=dim, keepdim=True)
        m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
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
            grad_output = grad_output.unsqueeze(ctx.dim)
        return grad_output * torch.exp(x), None, None

    @staticmethod
    def jvp(ctx, x_t, dim_t, keepdim_t):
        x, out = ctx.saved_tensors
        full = out if ctx.keepdim else out.unsqueeze(ctx.dim)
        return (torch.exp(x - full) * x_t).sum(dim=ctx.dim, keepdim=ctx.keepdim)
