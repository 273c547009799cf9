# mistake: writes sign(x) into x through .data (x.data.sign_()) after saving a copy: the caller's x is changed
# feedback: in place
# code: modifies-input
# rule: forward
# fails: values
# score: 5/6
class SignSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x.clone())
        return x.data.sign_().clone()

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * (x.abs() <= 1)
