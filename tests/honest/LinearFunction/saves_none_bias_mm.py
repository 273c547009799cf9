# style: setup_context style with F.linear's formula spelled as torch.addmm / torch.mm, the bias saved with save_for_backward (None allowed)
class LinearFunction(torch.autograd.Function):
    @staticmethod
    def forward(x, weight, bias):
        if bias is None:
            return torch.mm(x, weight.t())
        return torch.addmm(bias, x, weight.t())

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, weight, bias = inputs
        ctx.save_for_backward(x, weight, bias)

    @staticmethod
    def backward(ctx, grad_output):
        x, weight, bias = ctx.saved_tensors
        needs_x, needs_w, needs_b = ctx.needs_input_grad
        grad_x = torch.mm(grad_output, weight) if needs_x else None
        grad_w = torch.mm(grad_output.t(), x) if needs_w else None
        grad_b = grad_output.sum(dim=0) if needs_b and bias is not None else None
        return grad_x, grad_w, grad_b
