# mistake: detaches the saved output in backward: right first derivative, no second derivative
# feedback: detach
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
        y = y.detach()
        return grad_output * (1 - y * y)
