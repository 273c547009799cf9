# style: keeps clones of its own (neither input nor output) as ctx attributes: the caller cannot change them, so
# nothing escapes the version counter (decision 1: judged by behaviour, a copy is right)
class BroadcastMul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.a, ctx.b = a.detach().clone(), b.detach().clone()
        return a * b

    @staticmethod
    def backward(ctx, grad_output):
        return unbroadcast(grad_output * ctx.b, ctx.a.shape), unbroadcast(grad_output * ctx.a, ctx.b.shape)
