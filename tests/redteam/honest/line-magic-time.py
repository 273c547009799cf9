def make_square():
    class Square(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, grad_output):
            (x,) = ctx.saved_tensors
            return grad_output * 2 * x
    return Square


%time Square = make_square()
