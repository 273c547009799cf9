# mistake: saves y.detach(): the first derivative is right, the second loses the path through the output
# feedback: y.detach()
# code: backward-not-differentiable|saves-wrong-tensor
# rule: double_backward saves_output
# fails: second_derivative saves_output
# score: 2/5
class Tanh(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.tanh(x)
        ctx.save_for_backward(y.detach())
        return y

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        return grad_output * (1 - y * y)
