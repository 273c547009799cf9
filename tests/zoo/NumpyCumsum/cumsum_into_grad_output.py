# mistake: computes the reversed cumulative sum with numpy straight into grad_output's memory (np.cumsum(..., out=...)) and returns grad_output: it belongs to autograd
# feedback: in place
# code: inplace-grad-output
# rule: derivative
# fails: values
# score: 2/3
class NumpyCumsum(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, dim):
        ctx.dim = dim
        result = np.cumsum(x.detach().cpu().numpy(), axis=dim)
        return torch.from_numpy(result).to(x.device)

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output):
        flipped = np.flip(grad_output.numpy(), ctx.dim)
        np.cumsum(flipped, axis=ctx.dim, out=flipped)
        return grad_output, None
