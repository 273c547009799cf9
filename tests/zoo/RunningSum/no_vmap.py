# mistake: no vmap staticmethod at all (the Function of notebook 09, in the split style)
# feedback: no vmap staticmethod
# code: no-vmap-rule
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
