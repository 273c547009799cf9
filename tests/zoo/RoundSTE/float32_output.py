# mistake: converts the result to float32, losing the input's dtype
# feedback: dtype
# code: wrong-dtype
# rule: dtype
# fails: dtype
# score: 4/5
class RoundSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return torch.round(x).float()

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output
