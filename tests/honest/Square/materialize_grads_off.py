# style: ctx.set_materialize_grads(False) and a None check in backward
class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad_output):
        if grad_output is None:
            return None
        (x,) = ctx.saved_tensors
        return 2 * x * grad_output
