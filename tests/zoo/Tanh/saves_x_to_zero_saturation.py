# mistake: saves x too, to zero the derivative where |x| > 20 (1 - y*y is already 0 there)
# feedback: saved the input x
# code: saves-input
# rule: saves_output
# fails: saves_output
# score: 4/5
class Tanh(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.tanh(x)
        ctx.save_for_backward(y, x)
        return y

    @staticmethod
    def backward(ctx, grad_output):
        y, x = ctx.saved_tensors
        return grad_output * torch.where(x.abs() > 20, torch.zeros_like(y), 1 - y * y)
