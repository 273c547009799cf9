# mistake: returns grad_output.mean() broadcast to its shape (right only while grad_output is one number everywhere)
# feedback: unchanged
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
        return grad_output.mean().expand_as(grad_output)
