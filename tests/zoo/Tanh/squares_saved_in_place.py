# mistake: squares the saved output in place in backward (y.mul_(y)): the output the caller holds is overwritten, a second backward or create_graph finds it changed
# feedback: changed in place after it was saved
# code: inplace-error|backward-not-differentiable
# rule: derivative double_backward
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
        return grad_output * (1 - y.mul_(y))
