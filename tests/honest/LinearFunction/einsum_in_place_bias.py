# style: einsum for every product, the bias added in place to forward's own result
class LinearFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias):
        ctx.save_for_backward(x, weight)
        out = torch.einsum("ni,oi->no", x, weight)
        if bias is not None:
            out += bias
        return out

    @staticmethod
    def backward(ctx, grad_output):
        x, weight = ctx.saved_tensors
        grads = [None, None, None]
        if ctx.needs_input_grad[0]:
            grads[0] = torch.einsum("no,oi->ni", grad_output, weight)
        if ctx.needs_input_grad[1]:
            grads[1] = torch.einsum("no,ni->oi", grad_output, x)
        if ctx.needs_input_grad[2]:
            grads[2] = torch.einsum("no->o", grad_output)
        return tuple(grads)
