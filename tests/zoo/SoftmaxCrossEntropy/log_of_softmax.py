# mistake: takes torch.log of a (stable) softmax: a probability that underflows to 0 gives log(0) = -inf
# feedback: never log(softmax)
# code: overflow
# rule: stable
# fails: stable
# score: 6/8
class SoftmaxCrossEntropy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, logits, target):
        p = torch.softmax(logits, dim=1)
        ctx.save_for_backward(p, target)
        return -torch.log(p.gather(1, target[:, None])).mean()

    @staticmethod
    def backward(ctx, grad_output):
        p, target = ctx.saved_tensors
        n = p.shape[0]
        grad = p.clone()
        grad[torch.arange(n), target] -= 1
        return grad * (grad_output / n), None
