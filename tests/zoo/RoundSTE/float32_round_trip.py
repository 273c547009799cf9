# mistake: rounds a float32 copy and casts back (float64 values next to a half round onto the half)
# feedback: float32
# code: wrong-forward
# rule: forward
# fails: values
# score: 4/5
class RoundSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return torch.round(x.float()).to(x.dtype)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output
