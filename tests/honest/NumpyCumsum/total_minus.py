# style: the reverse cumsum as total - cumsum + g, in NumPy, keepdims
class NumpyCumsum(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, dim):
        ctx.dim = dim
        out = np.cumsum(x.detach().numpy(), axis=dim)
        return torch.tensor(out, dtype=x.dtype)

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output):
        g = grad_output.numpy()
        grad = g.sum(axis=ctx.dim, keepdims=True) - np.cumsum(g, axis=ctx.dim) + g
        return torch.tensor(grad), None
