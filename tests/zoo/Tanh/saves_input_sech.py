# mistake: saves the input and computes sech(x)**2 from exp(x) and exp(-x)
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
        return grad_output * 4 / (torch.exp(x) + torch.exp(-x)) ** 2
