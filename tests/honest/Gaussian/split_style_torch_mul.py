# saves x and the output through save_for_backward in the split style, gradient with torch.mul chains
CAUSE_Gaussian = "reference-cycle"


class Gaussian(torch.autograd.Function):
    @staticmethod
    def forward(x):
        return torch.exp(-torch.square(x))

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0], output)

    @staticmethod
    def backward(ctx, grad_output):
        x, out = ctx.saved_tensors
        return torch.mul(grad_output, out).mul(x).mul(-2.0)
