# style: save_for_backward(*[x]), torch.square, saved_tensors[0], the derivative as x + x, backward returns a 1-tuple
class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(*[x])
        return torch.square(x)

    @staticmethod
    def backward(ctx, grad_output):
        x = ctx.saved_tensors[0]
        return (grad_output * (x + x),)
