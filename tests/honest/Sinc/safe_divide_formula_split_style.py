# A correct Sinc in split style that divides by a copy of x whose zeros are replaced by 1 (the numerator is 0 there),
# the formula kept everywhere else (its rounding next to 0 is allowed).
CAUSE_Sinc = "zero-over-zero"


class Sinc(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x):
        safe = torch.where(x == 0, torch.ones_like(x), x)
        return torch.where(x == 0, torch.ones_like(x), torch.sin(safe) / safe)

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        safe = torch.where(x == 0, torch.ones_like(x), x)
        return grad_output * (x * torch.cos(x) - torch.sin(x)) / safe ** 2
