# mistake: multiplies grad_output by torch.ones(shape), float32: a bfloat16 input gets a float32 gradient
# feedback: dtype
# code: wrong-dtype
# rule: dtype
# fails: dtype
# score: 4/5
class RoundSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.shape = x.shape
        return torch.round(x)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * torch.ones(ctx.shape)
