# mistake: un-broadcasts with a mean (the sum divided by the number of copies) instead of a sum
# feedback: sum back to each input's shape is wrong
# code: wrong-unbroadcast-values
# rule: unbroadcast
# fails: shapes
# score: 2/4
class BroadcastMul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        ga, gb = grad_output * b, grad_output * a
        return ga.sum_to_size(a.shape) / (ga.numel() / max(a.numel(), 1)), gb.sum_to_size(b.shape) / (gb.numel() / max(b.numel(), 1))
