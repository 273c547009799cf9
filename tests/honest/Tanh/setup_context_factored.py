# style: (1 - y) * (1 + y), setup_context, torch.tanh via x.tanh()
class Tanh(torch.autograd.Function):
    @staticmethod
    def forward(x):
        return x.tanh()

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(output)

    @staticmethod
    def backward(ctx, grad_output):
        out, = ctx.saved_tensors
        return grad_output * (1 - out) * (1 + out)
