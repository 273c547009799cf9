# mistake: the unfilled exercise (the released stub: CAUSE_ still ..., the methods still raise NotImplementedError)
# feedback: not implemented yet
# code: not-implemented|no-cause
# fails: cause broadcast same_shapes
# score: 0/4
# ScaleShift: BrokenScaleShift fixed; CAUSE_ScaleShift: one key of CAUSES, as a string.
CAUSE_ScaleShift = ...


class ScaleShift(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w, b):
        # YOUR CODE HERE
        raise NotImplementedError()

    @staticmethod
    def backward(ctx, grad_output):
        # YOUR CODE HERE
        raise NotImplementedError()


# YOUR CODE HERE
raise NotImplementedError()
