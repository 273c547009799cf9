# mistake: builds the gradient from Python floats with .tolist(): no graph, float32 and slow
# feedback: second
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
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        local = [1 - v * v for v in y.detach().reshape(-1).tolist()]
        return grad_output * torch.tensor(local, dtype=y.dtype).reshape(y.shape)
