# mistake: computes the backward under torch.no_grad(), so nothing is recorded for a second derivative
# feedback: no_grad
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
        with torch.no_grad():
            return grad_output * (1 - y * y)
