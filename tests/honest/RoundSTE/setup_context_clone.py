# style: setup_context (nothing to save), backward returns a clone
class RoundSTE(torch.autograd.Function):
    @staticmethod
    def forward(x):
        return x.round()

    @staticmethod
    def setup_context(ctx, inputs, output):
        pass

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.clone()
