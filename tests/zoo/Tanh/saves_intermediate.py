# mistake: saves the intermediate 1 - y*y computed in forward instead of the output: a constant for the second derivative
# feedback: intermediate
# code: backward-not-differentiable|saves-wrong-tensor
# rule: double_backward saves_output
# fails: second_derivative saves_output
# score: 2/5
class Tanh(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.tanh(x)
        ctx.save_for_backward(1 - y * y)
        return y

    @staticmethod
    def backward(ctx, grad_output):
        (local,) = ctx.saved_tensors
        return grad_output * local
