# split style, saving both inputs with save_for_backward(*inputs); torch.mm and .t()
CAUSE_LinearMap = "saved-without-version"


class LinearMap(torch.autograd.Function):
    @staticmethod
    def forward(x, w):
        return torch.mm(x, w.t())

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(*inputs)

    @staticmethod
    def backward(ctx, grad_output):
        x, w = ctx.saved_tensors
        return torch.mm(grad_output, w), torch.mm(grad_output.t(), x)
