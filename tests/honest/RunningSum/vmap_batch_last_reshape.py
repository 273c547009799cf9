# style: vmap moves the batch to the front with movedim, torch.cumsum reversed in backward via total minus cumsum
class RunningSum(torch.autograd.Function):
    @staticmethod
    def forward(x):
        out = np.cumsum(x.numpy(force=True), axis=-1)
        return torch.from_numpy(out)

    @staticmethod
    def setup_context(ctx, inputs, output):
        return None

    @staticmethod
    def backward(ctx, grad_output):
        total = grad_output.sum(dim=-1, keepdim=True)
        return total - grad_output.cumsum(dim=-1) + grad_output

    @staticmethod
    def vmap(info, in_dims, x):
        (bdim,) = in_dims
        if bdim is None:
            return RunningSum.apply(x), None
        return RunningSum.apply(torch.movedim(x, bdim, 0)), 0
