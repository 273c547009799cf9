# style: ctx.set_materialize_grads(False) with a None check, grad_output - grad_output * out.square()
class Tanh(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        out = torch.tanh(x)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        if grad_output is None:
            return None
        out, = ctx.saved_tensors
        return grad_output - grad_output * out.square()
