# A correct LinearMap that saves detached aliases: detach() shares the version counter, so the change is caught.
CAUSE_LinearMap = "saved-without-version"


class LinearMap(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x.detach(), w.detach())
        return torch.matmul(x, w.t())

    @staticmethod
    def backward(ctx, grad_output):
        x, w = ctx.saved_tensors
        grad_x = grad_output @ w if ctx.needs_input_grad[0] else None
        grad_w = grad_output.t() @ x if ctx.needs_input_grad[1] else None
        return grad_x, grad_w
