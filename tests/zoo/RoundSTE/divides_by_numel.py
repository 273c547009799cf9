# mistake: backward returns grad_output divided by its number of elements (an average of the batch)
# feedback: not grad_output
# code: wrong-ste-gradient
# rule: straight_through
# fails: backward
# score: 3/5
class RoundSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return torch.round(x)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output / grad_output.numel()
