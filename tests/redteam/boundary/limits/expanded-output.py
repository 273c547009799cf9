# A Square whose forward returns a small tensor expanded to a huge shape (stride 0: one element in
# memory): anything on the judge's side that materialises it (ones_like, full_like, a contiguous copy)
# allocates {size_gb} GB in a process with no memory limit.
# stopped by: the judge refusing replies whose materialised size exceeds the learner's own memory limit
class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.zeros(1, dtype=x.dtype).expand({n}, {n})

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return torch.zeros_like(x)
