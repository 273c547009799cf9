# mistake: avoids the numpy() error by detaching grad_output instead of using @once_differentiable, so a second derivative silently has no graph
# feedback: once_differentiable
# code: not-once-differentiable
# rule: once_differentiable
# fails: once_differentiable
# score: 2/3
class NumpyCumsum(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, dim):
        ctx.dim = dim
        return torch.from_numpy(np.cumsum(x.detach().cpu().numpy(), axis=dim)).to(x.device)

    @staticmethod
    def backward(ctx, grad_output):
        g = grad_output.detach().cpu().numpy()
        grad = np.flip(np.cumsum(np.flip(g, ctx.dim), axis=ctx.dim), ctx.dim).copy()
        return torch.from_numpy(grad).to(grad_output.device), None
