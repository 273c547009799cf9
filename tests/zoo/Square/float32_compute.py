# mistake: computes in float32, losing precision (and the input's dtype)
# feedback: dtype
# code: wrong-dtype
# rule: derivative
# fails: values
# score: 2/3
class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return (x.float() * x.float())

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return (grad_output * 2 * x).float()
