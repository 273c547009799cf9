# style: moves the batch only when it sits on the dimension the kernel sums, and says where it left it
class RunningSum(torch.autograd.Function):
    @staticmethod
    def forward(x):
        summed = np.cumsum(x.numpy(force=True), axis=x.dim() - 1)
        return torch.from_numpy(summed).to(x.dtype)

    @staticmethod
    def setup_context(ctx, inputs, output):
        return None

    @staticmethod
    def backward(ctx, grad_output):
        return torch.flip(torch.cumsum(torch.flip(grad_output, [-1]), -1), [-1])

    @staticmethod
    def vmap(info, in_dims, x):
        (dim,) = in_dims
        if dim in (-1, x.dim() - 1):
            x, dim = x.movedim(dim, 0), 0
        return RunningSum.apply(x), dim
