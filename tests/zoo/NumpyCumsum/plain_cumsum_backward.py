# mistake: backward takes a plain cumulative sum of grad_output instead of the reversed one
# feedback: REVERSED
# code: wrong-derivative
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
        grad = np.cumsum(grad_output.cpu().numpy(), axis=ctx.dim)
        return torch.from_numpy(grad).to(grad_output.device), None
