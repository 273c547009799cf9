# mistake: the unfilled exercise (the released stub: CAUSE_ still ..., the methods still raise NotImplementedError)
# feedback: not implemented yet
# code: not-implemented|no-cause
# fails: cause number tensor
# score: 0/4
# DivideBy: BrokenDivideBy fixed; CAUSE_DivideBy: one key of CAUSES, as a string.
CAUSE_DivideBy = ...


class DivideBy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, t):
        # YOUR CODE HERE
        raise NotImplementedError()

    @staticmethod
    def backward(ctx, grad_output):
        # YOUR CODE HERE
        raise NotImplementedError()


# YOUR CODE HERE
raise NotImplementedError()
