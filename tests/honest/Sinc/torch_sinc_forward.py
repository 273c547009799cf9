# forward through torch.sinc (the normalised sinc, sin(pi u) / (pi u)); backward selects 0 where x == 0 with
# torch.where on the product
CAUSE_Sinc = "zero-over-zero"


class Sinc(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.sinc(x / torch.pi)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        slope = (x * torch.cos(x) - torch.sin(x)) / x ** 2
        return torch.where(x == 0, torch.zeros_like(grad_output), grad_output * slope)
