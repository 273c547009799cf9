# mistake: vmap moves the batch first but reports out_dims = in_dims[0]
# feedback: out_dims
# code: wrong-vmap
# rule: vmap
# fails: vmap
# score: 1/2
class RunningSum(torch.autograd.Function):
    @staticmethod
    def forward(x):
        return torch.from_numpy(np.cumsum(x.numpy(force=True), axis=-1))

    @staticmethod
    def setup_context(ctx, inputs, output):
        pass

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.flip(-1).cumsum(-1).flip(-1)

    @staticmethod
    def vmap(info, in_dims, x):
        out = RunningSum.apply(x.movedim(in_dims[0], 0))
        return out, in_dims[0]
