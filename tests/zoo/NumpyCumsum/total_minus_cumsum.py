# mistake: the gradient as total - cumsum (misses grad_output itself: an exclusive reversed cumsum)
# feedback: REVERSED
# code: wrong-derivative
# rule: derivative
# fails: gradcheck values
# score: 1/3
class NumpyCumsum(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, dim):
        ctx.dim = dim
        return torch.from_numpy(np.cumsum(x.detach().cpu().numpy(), axis=dim)).to(x.device)

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output):
        g = grad_output.cpu().numpy()
        total = g.sum(axis=ctx.dim, keepdims=True)
        return torch.from_numpy(total - np.cumsum(g, axis=ctx.dim)).to(grad_output.device), None
