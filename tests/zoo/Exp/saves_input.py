# mistake: saves the input x and recomputes exp(x) in backward (right numbers, but the output is not guarded and the input is kept)
# feedback: save the output
# code: saves-input
# rule: saves_output
# fails: saves_output inplace_input
# family: needs-input
# score: 2/5
class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.exp(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * torch.exp(x)
