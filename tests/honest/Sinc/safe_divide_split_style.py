# A correct Sinc in split style that divides by a copy of x whose zeros are replaced by 1 (the numerator is 0 there),
# and writes the derivative as (cos x - sinc x) / x, with its series -x/3 + x**3/30 - x**5/840 below |x| = 0.05.
CAUSE_Sinc = "zero-over-zero"


class Sinc(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x):
        safe = torch.where(x == 0, torch.ones_like(x), x)
        return torch.where(x == 0, torch.ones_like(x), torch.sin(safe) / safe)

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0], output)

    @staticmethod
    def backward(ctx, grad_output):
        x, value = ctx.saved_tensors
        safe = torch.where(x == 0, torch.ones_like(x), x)
        series = -x / 3 + x ** 3 / 30 - x ** 5 / 840
        return grad_output * torch.where(x.abs() < 0.05, series, (torch.cos(x) - value) / safe)
