# mistake: saves y but takes exp(y) in backward
# feedback: exp
# code: wrong-derivative
# rule: derivative
# fails: values
# score: 4/5
class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.exp(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        return grad_output * torch.exp(y)
