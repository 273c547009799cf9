import numpy as np
import torch.utils.checkpoint
from torch.func import vmap
@torch.library.custom_op("redteam::mysin", mutates_args=())
def mysin(x: torch.Tensor) -> torch.Tensor:
    return torch.from_numpy(np.sin(x.detach().numpy()))
@mysin.register_fake
def _(x):
    return torch.empty_like(x)
def _setup(ctx, inputs, output):
    ctx.save_for_backward(inputs[0])
def _backward(ctx, g):
    (x,) = ctx.saved_tensors
    return g * x.cos()
mysin.register_autograd(_backward, setup_context=_setup)

class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 2 * x

x = torch.randn(4, dtype=torch.float64, requires_grad=True)
mysin(x).sum().backward()
assert torch.allclose(x.grad, x.detach().cos())
compiled = torch.compile(lambda t: Square.apply(mysin(t)).sin(), backend="aot_eager")
compiled(x).sum().backward()
print(vmap(torch.sin)(torch.randn(3, 2)).shape)
torch.utils.checkpoint.checkpoint(lambda t: Square.apply(t).exp(), x, use_reentrant=False).sum().backward()
