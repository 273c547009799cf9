# mistake: saves both the input and the output, keeping the input alive for nothing
# feedback: save only y
# code: saves-extra|needs-input
# rule: saves_output
# fails: saves_output inplace_input
# score: 2/5
class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.exp(x)
        ctx.save_for_backward(x, y)
        return y

    @staticmethod
    def backward(ctx, grad_output):
        x, y = ctx.saved_tensors
        return grad_output * y
