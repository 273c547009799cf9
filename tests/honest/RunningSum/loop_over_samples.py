# style: a vmap that runs the kernel once per sample (slower, correct), np.add.accumulate, a saved shape
class RunningSum(torch.autograd.Function):
    @staticmethod
    def forward(x):
        return torch.from_numpy(np.add.accumulate(x.detach().cpu().numpy(), axis=-1))

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.shape = inputs[0].shape

    @staticmethod
    def backward(ctx, grad_output):
        total = grad_output.sum(-1, keepdim=True)
        return total - grad_output.cumsum(-1) + grad_output

    @staticmethod
    def vmap(info, in_dims, x):
        samples = x.unbind(in_dims[0])
        return torch.stack([RunningSum.apply(s) for s in samples]), 0
