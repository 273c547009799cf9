# A correct LinearMap that saves x and w themselves and computes only the gradients asked for.
CAUSE_LinearMap = "saved-without-version"


class LinearMap(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x, w)
        return torch.nn.functional.linear(x, w)

    @staticmethod
    def backward(ctx, grad_output):
        x, w = ctx.saved_tensors
        grad_x = grad_output.mm(w) if ctx.needs_input_grad[0] else None
        grad_w = grad_output.t().mm(x) if ctx.needs_input_grad[1] else None
        return grad_x, grad_w
