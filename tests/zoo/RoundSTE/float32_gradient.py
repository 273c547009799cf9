# mistake: backward converts grad_output to float32 (the engine casts it back, hiding the loss of precision)
# feedback: dtype
# code: wrong-dtype
# rule: dtype
# fails: dtype
# score: 4/5
class RoundSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return torch.round(x)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.float()
