# mistake: backward cumsums into the flipped view of grad_output's own buffer (out=), overwriting grad_output
# feedback: REVERSED cumulative sum
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
        g = np.flip(grad_output.cpu().numpy(), ctx.dim)
        np.cumsum(g, axis=ctx.dim, out=g)
        return torch.from_numpy(np.flip(g, ctx.dim).copy()), None
