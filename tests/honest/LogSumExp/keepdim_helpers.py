# style: module-level helpers, the reduction always done with keepdim=True and squeezed at the end, dim
# normalised to a positive index, torch.where for the finite shift
def _finite_max(x, dim):
    m = torch.amax(x, dim=dim, keepdim=True)
    return torch.where(torch.isfinite(m), m, torch.zeros_like(m))


def _with_dim(t, dim, keepdim):
    return t if keepdim else t.unsqueeze(dim)


class LogSumExp(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x, dim, keepdim):
        shift = _finite_max(x, dim)
        total = torch.sum(torch.exp(x - shift), dim=dim, keepdim=True)
        result = shift + torch.log(total)
        if not keepdim:
            result = torch.squeeze(result, dim)
        return result

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, dim, keepdim = inputs
        ctx.dim = dim % x.dim()
        ctx.keepdim = bool(keepdim)
        ctx.save_for_backward(x, output)
        ctx.save_for_forward(x, output)

    @staticmethod
    def backward(ctx, grad_output):
        x, result = ctx.saved_tensors
        weights = torch.exp(x - _with_dim(result, ctx.dim, ctx.keepdim))
        return _with_dim(grad_output, ctx.dim, ctx.keepdim) * weights, None, None

    @staticmethod
    def jvp(ctx, x_t, dim_t, keepdim_t):
        x, result = ctx.saved_tensors
        weights = torch.exp(x - _with_dim(result, ctx.dim, ctx.keepdim))
        return torch.sum(weights * x_t, dim=ctx.dim, keepdim=ctx.keepdim)
