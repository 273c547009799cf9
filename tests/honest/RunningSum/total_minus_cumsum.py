# style: backward as the total minus the exclusive running sum, with torch.sum and torch.cumsum; vmap through torch.movedim
class RunningSum(torch.autograd.Function):
    @staticmethod
    def forward(x):
        data = x.detach().cpu().numpy()
        return torch.tensor(np.cumsum(data, axis=-1), dtype=x.dtype)

    @staticmethod
    def setup_context(ctx, inputs, output):
        return None

    @staticmethod
    def backward(ctx, grad_output):
        total = grad_output.sum(dim=-1, keepdim=True)
        return total - grad_output.cumsum(dim=-1) + grad_output

    @staticmethod
    def vmap(info, in_dims, x):
        (dim,) = in_dims
        return RunningSum.apply(torch.movedim(x, dim, 0)), 0
