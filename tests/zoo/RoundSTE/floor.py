# mistake: forward uses torch.floor instead of torch.round
# feedback: torch.round
# code: wrong-forward
# rule: forward
# fails: values
# score: 4/5
class RoundSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return torch.floor(x)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output
