# mistake: saves the input and recomputes tanh in backward (works, twice differentiable, but keeps the input)
# feedback: save only the output
# code: saves-input
# rule: saves_output
# fails: saves_output
# score: 4/5
class Tanh(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.tanh(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * (1 - torch.tanh(x) ** 2)
