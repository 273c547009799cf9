# saves x.detach() and w.detach() (they share the version counter: a change of x or w is still caught) and b
CAUSE_ScaleShift = "sum-before-multiply"


class ScaleShift(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w, b):
        ctx.save_for_backward(x.detach(), w.detach(), b)      # detach shares the version counter
        return x * w + b

    @staticmethod
    def backward(ctx, grad_output):
        x, w, b = ctx.saved_tensors
        return ((grad_output * w).sum_to_size(x.shape), (grad_output * x).sum_to_size(w.shape),
                grad_output.sum_to_size(b.shape))
