# mistake: forward returns the NumPy array itself instead of converting it back to a tensor
# feedback: torch.from_numpy
# code: not-a-tensor
# rule: derivative
# fails: values gradcheck
# score: 1/3
class NumpyCumsum(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, dim):
        ctx.dim = dim
        return np.cumsum(x.detach().cpu().numpy(), axis=dim)

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output):
        g = grad_output.cpu().numpy()
        grad = np.flip(np.cumsum(np.flip(g, ctx.dim), axis=ctx.dim), ctx.dim).copy()
        return torch.from_numpy(grad).to(grad_output.device), None
