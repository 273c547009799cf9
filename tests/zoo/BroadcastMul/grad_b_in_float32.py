# mistake: computes b's gradient in float32 and casts it back
# feedback: float32
# code: float32-precision
# rule: derivative
# fails: values
# score: 3/4
class BroadcastMul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        return unbroadcast(grad_output * b, a.shape), unbroadcast(grad_output.float() * a.float(), b.shape).to(b.dtype)
