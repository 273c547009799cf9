# A correct LinearMap that subclasses the broken one and overrides forward only (its backward was right).
CAUSE_LinearMap = "saved-without-version"


class LinearMap(BrokenLinearMap):
    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x, w)
        return x @ w.T
