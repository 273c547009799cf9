# mistake: rounds in half precision to save memory, casts back (large values lose their last digits)
# feedback: torch.round
# code: wrong-forward
# rule: forward
# fails: values
# score: 4/5
class RoundSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return torch.round(x.half()).to(x.dtype)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output
