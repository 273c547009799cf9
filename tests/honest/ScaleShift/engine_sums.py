# A correct ScaleShift that subclasses the broken one (defined in a setup cell) and returns each gradient with the
# output's shape, complete, leaving the summing to the engine: right through autograd.
CAUSE_ScaleShift = 'sum-before-multiply'   # quotes of another kind


class ScaleShift(BrokenScaleShift):
    @staticmethod
    def backward(ctx, grad_output):
        x, w = ctx.saved_tensors
        return grad_output * w, grad_output * x, grad_output
