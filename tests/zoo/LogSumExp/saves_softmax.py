# mistake: saves the softmax exp(x - output), computed in setup_context, as well as x and the output: a second x-sized tensor kept alive (memory), and one autograd cannot differentiate again, since it is not built in backward from the saved x and output (double_backward)
# feedback: save x and the output
# code: saves-too-much
# rule: memory double_backward
# fails: gradgradcheck memory
# family: not-twice-differentiable
# score: 8/10
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
        full = output if keepdim else output.unsqueeze(dim)
        ctx.save_for_backward(x, output, torch.exp(x - full))
        ctx.save_for_forward(x, output)

    @staticmethod
    def backward(ctx, grad_output):
        x, out, p = ctx.saved_tensors
        if not ctx.keepdim:
            grad_output = grad_output.unsqueeze(ctx.dim)
        return grad_output * p, None, None

    @staticmethod
    def jvp(ctx, x_t, dim_t, keepdim_t):
        x, out = ctx.saved_tensors
        full = out if ctx.keepdim else out.unsqueeze(ctx.dim)
        return (torch.exp(x - full) * x_t).sum(dim=ctx.dim, keepdim=ctx.keepdim)
