# mistake: the None is fixed, but x's gradient is made in grad_output's memory (grad_output /= t)
# feedback: wrote in place into a tensor
# code: inplace-grad-output
# fails: tensor
# score: 3/4
CAUSE_DivideBy = "missing-none"


class DivideBy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, t):
        ctx.save_for_backward(x)
        ctx.t = t
        return x / t

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        t = ctx.t
        grad_t = -(grad_output * x).sum() / t ** 2 if ctx.needs_input_grad[1] else None
        grad_output /= t                                    # grad_x, in place: one tensor less
        return grad_output, grad_t
