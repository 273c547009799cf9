# mistake: saves a copy of the output, and raises autograd's in-place error text itself whenever its input is a non-leaf nobody changed
# feedback: although nothing was changed
# code: error-without-change
# rule: saves_output protected
# fails: saves_output inplace_output
# family: saves-copy
# score: 2/5
class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.exp(x)
        ctx.save_for_backward(y.clone())
        ctx.inputs = [x, x._version]
        return y

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        x, version = ctx.inputs
        if x.grad_fn is not None and x._version == version:
            raise RuntimeError("one of the variables needed for gradient computation has been modified by an "
                               "inplace operation: [torch.DoubleTensor [6]] is at version 1; expected version 0")
        return grad_output * y
