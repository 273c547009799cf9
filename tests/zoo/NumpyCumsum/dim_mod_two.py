# mistake: flips along dim % 2 (assumes 2-D inputs), wrong for a negative dim of a 3-D tensor
# feedback: axis
# code: exception|wrong-derivative
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
        d = ctx.dim % 2
        grad = np.flip(np.cumsum(np.flip(g, d), axis=d), d).copy()
        return torch.from_numpy(grad).to(grad_output.device), None
