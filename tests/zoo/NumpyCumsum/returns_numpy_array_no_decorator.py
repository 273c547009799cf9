# mistake: forward returns the NumPy array itself, and backward lacks @once_differentiable (two mistakes)
# feedback: torch.from_numpy
# code: not-a-tensor|not-once-differentiable
# rule: derivative once_differentiable
# fails: values gradcheck once_differentiable
# score: 0/3
class NumpyCumsum(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, dim):
        ctx.dim = dim
        return np.cumsum(x.detach().cpu().numpy(), axis=dim)

    @staticmethod
    def backward(ctx, grad_output):
        g = grad_output.cpu().numpy()
        grad = np.flip(np.cumsum(np.flip(g, ctx.dim), axis=ctx.dim), ctx.dim).copy()
        return torch.from_numpy(grad).to(grad_output.device), None
