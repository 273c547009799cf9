# mistake: forgets @once_differentiable, so a NumPy backward under create_graph=True crashes on .numpy()
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
        g = grad_output.cpu().numpy()
        grad = np.flip(np.cumsum(np.flip(g, ctx.dim), axis=ctx.dim), ctx.dim).copy()
        return torch.from_numpy(grad).to(grad_output.device), None
