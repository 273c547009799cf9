# mistake: squares x through .data (x.data.pow_(2)) and returns a copy: the caller's x changes behind autograd's back
# feedback: in place
# code: modifies-input
# rule: derivative
# fails: values
# score: 2/3
class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        x.data.pow_(2)
        return x.clone()

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 2 * x
