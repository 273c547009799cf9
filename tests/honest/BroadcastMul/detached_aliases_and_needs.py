# style: saves a.detach() and b.detach() (they share the inputs' version counters), torch.mul, ctx.needs_input_grad
class BroadcastMul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a.detach(), b.detach())
        return torch.mul(a, b)

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        grad_a = grad_b = None
        if ctx.needs_input_grad[0]:
            grad_a = unbroadcast(grad_output * b, a.shape)
        if ctx.needs_input_grad[1]:
            grad_b = unbroadcast(grad_output * a, b.shape)
        return grad_a, grad_b
