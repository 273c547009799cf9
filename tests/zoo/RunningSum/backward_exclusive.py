# mistake: backward takes the running sum from the end but excludes each position itself (off by one)
# feedback: each input reaches every output at or after it
# code: wrong-derivative
# rule: values
# fails: values
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
        return grad_output.flip(-1).cumsum(-1).flip(-1) - grad_output

    @staticmethod
    def vmap(info, in_dims, x):
        x = x.movedim(in_dims[0], 0)
        return RunningSum.apply(x), 0
