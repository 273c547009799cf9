# mistake: flattens grad_output with .view(-1): fails when grad_output is not contiguous (a loss that sums the rows of a 2-D output first)
# feedback: .view cannot reshape it
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
        return (grad_output.view(-1) * 2 * x.view(-1)).view(x.shape)
