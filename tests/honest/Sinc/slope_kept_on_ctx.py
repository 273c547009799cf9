# the derivative computed in forward and kept as a ctx attribute: a tensor of the Function's own, neither input nor
# output, which a caller cannot change
CAUSE_Sinc = "zero-over-zero"


class Sinc(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        nonzero = x != 0
        safe = torch.where(nonzero, x, torch.ones_like(x))
        ctx.slope = torch.where(nonzero, (safe * torch.cos(safe) - torch.sin(safe)) / safe ** 2, 0.0)
        return torch.where(nonzero, torch.sin(safe) / safe, 1.0)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.slope
