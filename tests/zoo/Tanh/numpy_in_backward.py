# mistake: computes the backward in NumPy: autograd cannot differentiate it again, and for a 0-d input the product is a NumPy scalar that torch.from_numpy refuses
# feedback: numpy
# code: crashed|backward-not-differentiable
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
        local = 1 - y.detach().numpy() ** 2
        return torch.from_numpy(grad_output.numpy() * local)
