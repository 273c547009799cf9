# mistake: computes the gradient into grad_output's own array in place (np.cumsum(..., out=)) after a flip copy
# feedback: grad_output in place
# code: inplace-grad-output
# rule: derivative
# fails: values
# score: 2/3
class NumpyCumsum(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, dim):
        ctx.dim = dim
        return torch.from_numpy(np.cumsum(x.detach().cpu().numpy(), axis=dim)).to(x.device)

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output):
        g = grad_output.numpy()
        g[...] = np.flip(np.cumsum(np.flip(g, ctx.dim), axis=ctx.dim), ctx.dim)
        return grad_output, None
