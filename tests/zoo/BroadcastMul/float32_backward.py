# mistake: backward multiplies in float32 (.float()) and casts each gradient back: float64 gradients only float32-accurate
# feedback: backward computes something in float32
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
        g = grad_output.float()
        return unbroadcast(g * b.float(), a.shape).to(a.dtype), unbroadcast(g * a.float(), b.shape).to(b.dtype)
