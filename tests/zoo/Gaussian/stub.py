# mistake: the unfilled exercise (the released stub: CAUSE_ still ..., the methods still raise NotImplementedError)
# feedback: not implemented yet
# code: not-implemented|no-cause
# fails: cause freed values
# score: 0/4
# Gaussian: BrokenGaussian fixed; CAUSE_Gaussian: one key of CAUSES, as a string.
CAUSE_Gaussian = ...


class Gaussian(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        # YOUR CODE HERE
        raise NotImplementedError()

    @staticmethod
    def backward(ctx, grad_output):
        # YOUR CODE HERE
        raise NotImplementedError()


# YOUR CODE HERE
raise NotImplementedError()
