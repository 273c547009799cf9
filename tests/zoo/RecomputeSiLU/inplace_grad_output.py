# mistake: multiplies grad_output in place by the recomputed derivative (grad_output.mul_(...)) to save memory, and returns it: grad_output belongs to autograd
# feedback: in place
# code: inplace-grad-output
# rule: derivative
# fails: values
# score: 4/5
class RecomputeSiLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * torch.sigmoid(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        s = torch.sigmoid(x)
        return grad_output.mul_(s * (1 + x * (1 - s)))
