# style: vmap flattens every leading dimension into one batch for the kernel, then restores the shape
class RunningSum(torch.autograd.Function):
    @staticmethod
    def forward(x):
        return torch.from_numpy(np.cumsum(x.numpy(force=True), axis=-1)).to(x.device)

    @staticmethod
    def setup_context(ctx, inputs, output):
        pass

    @staticmethod
    def backward(ctx, grad_output):
        return torch.flip(torch.cumsum(torch.flip(grad_output, [-1]), -1), [-1])

    @staticmethod
    def vmap(info, in_dims, x):
        x = x.movedim(in_dims[0], 0).contiguous()
        flat = x.reshape(-1, x.shape[-1])
        return RunningSum.apply(flat).reshape(x.shape), 0
