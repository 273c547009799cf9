# mistake: multiplies grad_output in place by the local derivative (grad_output.mul_(1 - y * y)) and returns it: grad_output belongs to autograd
# feedback: in place
# code: inplace-grad-output
# rule: derivative
# fails: values
# score: 4/5
class Tanh(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.tanh(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        return grad_output.mul_(1 - y * y)
