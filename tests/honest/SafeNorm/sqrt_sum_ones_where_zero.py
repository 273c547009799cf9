# style: sqrt of the sum of squares in forward, the unit vector masked by multiplying with (norm > 0) after nan_to_num-free division by a norm whose zeros became ones
class SafeNorm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        norm = torch.sqrt((x * x).sum(dim=-1))
        ctx.save_for_backward(x, norm)
        return norm

    @staticmethod
    def backward(ctx, grad_output):
        x, norm = ctx.saved_tensors
        n = norm.unsqueeze(-1)
        safe = n + (n == 0).to(n.dtype)          # a new tensor: 1 where the row is zero, the norm elsewhere
        return grad_output[..., None] * (x / safe)
