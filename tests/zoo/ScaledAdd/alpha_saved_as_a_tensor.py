# mistake: saves alpha as torch.tensor(alpha) with ctx.save_for_backward: a float32 tensor, so alpha is rounded
# feedback: float32
# code: alpha-rounded
# rule: alpha
# fails: alpha
# score: 4/5
class ScaledAdd(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y, alpha):
        ctx.save_for_backward(torch.tensor(alpha))
        return x + alpha * y

    @staticmethod
    def backward(ctx, grad_output):
        (alpha,) = ctx.saved_tensors
        gx = grad_output if ctx.needs_input_grad[0] else None
        gy = grad_output * alpha if ctx.needs_input_grad[1] else None
        return gx, gy, None
