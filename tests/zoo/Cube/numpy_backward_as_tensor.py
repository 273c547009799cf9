# mistake: backward computes 3x^2 with NumPy (torch.as_tensor(np.asarray(...)), so a 0-d input works): autograd cannot differentiate it (double_backward) and torch.func cannot run it on its storage-free tensors (transforms)
# feedback: differentiable
# code: not-twice-differentiable
# rule: double_backward transforms
# fails: gradgradcheck grad
# family: leaves-torch
# score: 3/5
import numpy as np


class Cube(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x):
        return x ** 3

    @staticmethod
    def setup_context(ctx, inputs, output):
        (x,) = inputs
        ctx.save_for_backward(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        local = torch.as_tensor(np.asarray(3 * x.numpy(force=True) ** 2)).to(grad_output)
        return grad_output * local
