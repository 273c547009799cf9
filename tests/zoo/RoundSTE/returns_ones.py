# mistake: backward returns ones instead of grad_output
# feedback: grad_output
# code: ignores-grad-output
# rule: straight_through
# fails: backward
# score: 3/5
class RoundSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return torch.round(x)

    @staticmethod
    def backward(ctx, grad_output):
        return torch.ones_like(grad_output)
