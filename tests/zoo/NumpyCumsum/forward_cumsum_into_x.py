# mistake: np.cumsum(a, out=a) on x's own NumPy view: the running sums are written into the caller's x
# feedback: in place
# code: modifies-input
# rule: derivative
# fails: values gradcheck
# score: 1/3
class NumpyCumsum(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, dim):
        ctx.dim = dim
        a = x.detach().numpy()
        np.cumsum(a, axis=dim, out=a)
        return torch.from_numpy(a.copy())

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output):
        g = grad_output.cpu().numpy()
        grad = np.flip(np.cumsum(np.flip(g, ctx.dim), axis=ctx.dim), ctx.dim).copy()
        return torch.from_numpy(grad).to(grad_output.device), None
