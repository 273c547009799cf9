# mistake: converts to float64 for NumPy and never converts back, so a float32 input gives a float64 output
# feedback: dtype
# code: wrong-dtype
# rule: derivative
# fails: values
# score: 2/3
class NumpyCumsum(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, dim):
        ctx.dim = dim
        return torch.from_numpy(np.cumsum(x.detach().cpu().numpy().astype(np.float64), axis=dim)).to(x.device)

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output):
        g = grad_output.cpu().numpy().astype(np.float64)
        grad = np.flip(np.cumsum(np.flip(g, ctx.dim), axis=ctx.dim), ctx.dim).copy()
        return torch.from_numpy(grad).to(grad_output.device), None
