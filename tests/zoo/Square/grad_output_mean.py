# mistake: multiplies by grad_output.mean() (right only while grad_output is the same number everywhere)
# feedback: times grad_output
# code: wrong-derivative
# rule: derivative
# fails: values
# score: 2/3
class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return 2 * x * grad_output.mean()
