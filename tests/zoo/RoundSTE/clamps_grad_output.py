# mistake: clips the gradient itself to [-1, 1] (gradient clipping mistaken for the clipped STE)
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
        return grad_output.clamp(-1, 1)
