# mistake: saves y but returns y.clone(): the saved tensor is not the output, so it is a constant for the second derivative
# feedback: not a copy
# code: backward-not-differentiable|saves-wrong-tensor
# rule: double_backward saves_output
# fails: second_derivative saves_output
# score: 2/5
class Tanh(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.tanh(x)
        ctx.save_for_backward(y)
        return y.clone()

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        return grad_output * (1 - y * y)
