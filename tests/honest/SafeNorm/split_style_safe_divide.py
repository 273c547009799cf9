# style: forward(x) + setup_context, a helper, prints, and a division by a copy of the norm whose zeros are 1
def _positive_copy(norm):
    return torch.where(norm == 0, torch.ones_like(norm), norm)


class SafeNorm(torch.autograd.Function):
    @staticmethod
    def forward(x):
        return torch.linalg.vector_norm(x, ord=2, dim=-1)

    @staticmethod
    def setup_context(ctx, inputs, output):
        (x,) = inputs
        ctx.save_for_backward(x, output)

    @staticmethod
    def backward(ctx, grad_output):
        x, norm = ctx.saved_tensors
        denominator = _positive_copy(norm)[..., None]
        return grad_output[..., None] * (x / denominator)


print("SafeNorm of (3, 4):", SafeNorm.apply(torch.tensor([3.0, 4.0])).item())
