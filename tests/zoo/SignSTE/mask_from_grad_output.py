# mistake: builds the clipping mask from grad_output instead of the saved input x
# feedback: depends on the INPUT x
# code: mask-from-grad-output
# rule: clipped
# fails: backward
# score: 4/6
class SignSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return torch.sign(x)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * (grad_output.abs() <= 1)
