# mistake: np.cumsum(a, out=a) on x's own NumPy view: the running sums are written into the caller's x
# feedback: in place
# code: modifies-input
# rule: values
# fails: values
# score: 1/2
class RunningSum(torch.autograd.Function):
    @staticmethod
    def forward(x):
        a = x.numpy(force=True)
        np.cumsum(a, axis=-1, out=a)
        return torch.from_numpy(a.copy())

    @staticmethod
    def setup_context(ctx, inputs, output):
        pass

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.flip(-1).cumsum(-1).flip(-1)

    @staticmethod
    def vmap(info, in_dims, x):
        x = x.movedim(in_dims[0], 0)
        return RunningSum.apply(x), 0
