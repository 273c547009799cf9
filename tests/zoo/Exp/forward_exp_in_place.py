# mistake: computes exp in place on the input (x.exp_()), overwriting the caller's x with the output
# feedback: in place
# code: modifies-input
# rule: derivative
# fails: values
# score: 4/5
class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = x.exp_()
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        return grad_output * y
