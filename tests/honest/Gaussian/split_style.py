# A correct Gaussian in split style, saving the output through setup_context, with a try-out line after it.
CAUSE_Gaussian = "reference-cycle"


class Gaussian(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x):
        return torch.exp(-x * x)

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0], output)

    @staticmethod
    def backward(ctx, grad_output):
        x, out = ctx.saved_tensors
        return grad_output * -2 * x * out


Gaussian.apply(torch.zeros(2, requires_grad=True)).sum().backward()
