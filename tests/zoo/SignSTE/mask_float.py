# mistake: converts the mask with .float(): a float32 mask turns a bfloat16 gradient into float32
# feedback: dtype
# code: wrong-dtype
# rule: dtype
# fails: dtype
# score: 5/6
class SignSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.sign(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * (x.abs() <= 1).float()
