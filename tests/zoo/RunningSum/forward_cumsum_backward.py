# mistake: backward is the forward running sum of grad_output (not from the end)
# feedback: taken from the end
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
        return grad_output.cumsum(-1)

    @staticmethod
    def vmap(info, in_dims, x):
        x = x.movedim(in_dims[0], 0)
        return RunningSum.apply(x), 0
