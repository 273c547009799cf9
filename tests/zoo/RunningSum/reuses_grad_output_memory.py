# mistake: writes the reversed cumulative sum back into grad_output's memory with numpy (np.cumsum(..., out=...)) and returns it: grad_output belongs to autograd
# feedback: wrote into grad_output
# code: inplace-grad-output
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
        g = grad_output.numpy()
        np.cumsum(g[..., ::-1], axis=-1, out=g[..., ::-1])
        return grad_output

    @staticmethod
    def vmap(info, in_dims, x):
        x = x.movedim(in_dims[0], 0)
        return RunningSum.apply(x), 0
