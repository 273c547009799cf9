# mistake: multiplies grad_output in place by the straight-through derivative 1 (grad_output *= ones) and returns it: grad_output belongs to autograd
# feedback: in place
# code: inplace-grad-output
# rule: straight_through
# fails: backward
# score: 3/5
class RoundSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return torch.round(x)

    @staticmethod
    def backward(ctx, grad_output):
        grad_output *= torch.ones_like(grad_output)
        return grad_output
