# mistake: computes the backward in NumPy: autograd cannot differentiate it again
# feedback: numpy
# code: crashed|backward-not-differentiable
# rule: derivative
# fails: values second_derivative
# score: 2/5
class Tanh(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.tanh(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        local = 1 - y.detach().numpy() ** 2
        return torch.from_numpy(grad_output.numpy() * local)
