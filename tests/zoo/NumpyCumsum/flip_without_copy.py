# mistake: hands np.flip's reversed view (negative strides) straight to torch.from_numpy
# feedback: negative strides
# code: negative-strides
# rule: derivative
# fails: values gradcheck
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
        grad = np.flip(np.cumsum(np.flip(g, ctx.dim), axis=ctx.dim), ctx.dim)
        return torch.from_numpy(grad).to(grad_output.device), None
