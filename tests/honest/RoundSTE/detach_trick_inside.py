# style: the notebook's detach trick written inside forward, x + (round(x) - x)
class RoundSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x + (torch.round(x) - x).detach()

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output
