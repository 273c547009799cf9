# style: F.normalize in backward (its clamp at 1e-12 is below every norm the contract asks about), a debug print
import torch.nn.functional as F

DEBUG = False


class SafeNorm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.norm(p=2, dim=-1)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        if DEBUG:
            print("backward", x.shape, grad_output.shape)
        return grad_output.unsqueeze(-1) * F.normalize(x, p=2.0, dim=-1)
