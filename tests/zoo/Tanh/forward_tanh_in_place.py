# mistake: computes tanh in place on the input (x.tanh_()), overwriting the caller's x
# feedback: in place
# code: modifies-input
# rule: derivative
# fails: values
# score: 4/5
class Tanh(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = x.tanh_()
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        return grad_output * (1 - y * y)
