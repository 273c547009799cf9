# mistake: vmap passes in_dims itself (a tuple) to movedim, as if it were the batch dimension (in_dims[0])
# feedback: in_dims is a tuple
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
        x = x.movedim(in_dims, 0)
        return RunningSum.apply(x), 0
