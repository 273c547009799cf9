# style: a helper function in the answer cell, set_materialize_grads(False) with a None check, a plot
import matplotlib.pyplot as plt


def _scale(grad, y):
    return grad * y


class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        y = torch.exp(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad_output):
        if grad_output is None:
            return None
        (y,) = ctx.saved_tensors
        return _scale(grad_output, y)


plt.plot([0, 1], [1, 2.718])
