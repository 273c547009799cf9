# style: torch.addcmul(grad_output, grad_output * y, y, value=-1): g - g*y*y
class Tanh(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        out = torch.tanh(x)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        (out,) = ctx.saved_tensors
        return torch.addcmul(grad_output, grad_output * out, out, value=-1)
