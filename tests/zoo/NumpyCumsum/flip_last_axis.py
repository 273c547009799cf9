# mistake: backward flips the last axis ([..., ::-1]) whatever dim is
# feedback: along the same dim
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
        grad = np.cumsum(g[..., ::-1], axis=ctx.dim)[..., ::-1].copy()
        return torch.from_numpy(grad).to(grad_output.device), None
