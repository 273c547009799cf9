# mistake: the unfilled exercise (the released stub: CAUSE_ still ..., the methods still raise NotImplementedError)
# feedback: not implemented yet
# code: not-implemented|no-cause
# fails: cause inplace values
# score: 0/4
# LinearMap: BrokenLinearMap fixed; CAUSE_LinearMap: one key of CAUSES, as a string.
CAUSE_LinearMap = ...


class LinearMap(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w):
        # YOUR CODE HERE
        raise NotImplementedError()

    @staticmethod
    def backward(ctx, grad_output):
        # YOUR CODE HERE
        raise NotImplementedError()


# YOUR CODE HERE
raise NotImplementedError()
