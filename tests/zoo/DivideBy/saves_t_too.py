# mistake: forward saves t with save_for_backward too, which refuses a Python number: the report's case now crashes in forward
# feedback: save_for_backward can only save variables
# code: symptom-remains
# fails: cause number tensor
# score: 0/4
CAUSE_DivideBy = "missing-none"


class DivideBy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, t):
        ctx.save_for_backward(x, t)             # everything backward reads, through save_for_backward
        return x / t

    @staticmethod
    def backward(ctx, grad_output):
        x, t = ctx.saved_tensors
        grad_t = -(grad_output * x).sum() / t ** 2 if ctx.needs_input_grad[1] else None
        return grad_output / t, grad_t
