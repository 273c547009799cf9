# mistake: marks backward @once_differentiable although the exercise asks for a twice-differentiable backward
# feedback: once_differentiable
# code: backward-not-differentiable
# rule: double_backward
# fails: second_derivative
# score: 3/5
class Tanh(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.tanh(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        return grad_output * (1 - y * y)
