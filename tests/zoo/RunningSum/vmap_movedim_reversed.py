# mistake: vmap calls x.movedim(0, in_dims[0]) (arguments reversed): right only when the batch is already first
# feedback: out_dims must name the dimension
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
        x = x.movedim(0, in_dims[0])
        return RunningSum.apply(x), 0
