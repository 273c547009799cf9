# mistake: backward detaches grad_output instead of @once_differentiable, and hands np.flip's view to torch.from_numpy
# feedback: negative strides
# code: negative-strides
# rule: derivative once_differentiable
# fails: gradcheck once_differentiable values
# score: 0/3
class NumpyCumsum(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, dim):
        ctx.dim = dim
        return torch.from_numpy(np.cumsum(x.detach().cpu().numpy(), axis=dim)).to(x.device)

    @staticmethod
    def backward(ctx, grad_output):
        g = grad_output.detach().cpu().numpy()
        grad = np.flip(np.cumsum(np.flip(g, ctx.dim), axis=ctx.dim), ctx.dim)
        return torch.from_numpy(grad).to(grad_output.device), None
