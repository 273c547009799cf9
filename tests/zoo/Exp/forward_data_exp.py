# mistake: writes exp(x) into x through .data (x.data.exp_()) and returns a copy: the caller's x is changed behind autograd's back
# feedback: in place
# code: modifies-input
# rule: derivative
# fails: values
# score: 4/5
class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x.data.exp_()
        y = x.clone()
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        return grad_output * y
