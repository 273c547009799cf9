# style: np.ascontiguousarray instead of .copy(), x[::-1]-style slicing via np.flip on every call
class NumpyCumsum(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, dim):
        ctx.dim = dim
        return torch.from_numpy(np.cumsum(x.detach().numpy(), axis=dim)).to(x.device)

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output):
        g = np.flip(grad_output.numpy(), ctx.dim)
        return torch.from_numpy(np.ascontiguousarray(np.flip(np.cumsum(g, axis=ctx.dim), ctx.dim))), None
