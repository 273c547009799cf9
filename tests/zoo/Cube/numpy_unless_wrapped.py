# mistake: backward uses NumPy (not differentiable, double_backward; a 0-d input gives a NumPy scalar, derivative) unless its tensors are torch.func wrappers, where it switches to torch operations; torch.func's storage-free run still meets the NumPy branch (transforms)
# feedback: differentiable torch operations
# code: not-twice-differentiable
# rule: derivative double_backward transforms
# fails: values gradgradcheck grad
# family: leaves-torch
# score: 2/5
import torch._C._functorch as _functorch


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
        if _functorch.is_functorch_wrapped_tensor(x) or _functorch.is_functorch_wrapped_tensor(grad_output):
            return grad_output * 3 * x ** 2
        return grad_output * torch.from_numpy(3 * x.numpy(force=True) ** 2)
