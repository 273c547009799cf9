# style: setup_context, torch.addmm when there is a bias, einsum in backward
class LinearFunction(torch.autograd.Function):
    @staticmethod
    def forward(x, weight, bias):
        if bias is None:
            return x @ weight.t()
        return torch.addmm(bias, x, weight.t())

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, weight, bias = inputs
        ctx.save_for_backward(x, weight)

    @staticmethod
    def backward(ctx, grad_output):
        x, weight = ctx.saved_tensors
        grads = [None, None, None]
        if ctx.needs_input_grad[0]:
            grads[0] = torch.einsum("bo,oi->bi", grad_output, weight)
        if ctx.needs_input_grad[1]:
            grads[1] = torch.einsum("bo,bi->oi", grad_output, x)
        if ctx.needs_input_grad[2]:
            grads[2] = grad_output.sum(0)
        return tuple(grads)
