# mistake: softmax without subtracting the row max, so exp overflows (and log(0) appears) for large logits
# feedback: log-sum-exp
# code: overflow
# rule: stable
# fails: stable
# score: 6/8
class SoftmaxCrossEntropy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, logits, target):
        e = torch.exp(logits)
        p = e / e.sum(dim=1, keepdim=True)
        ctx.save_for_backward(p, target)
        return -torch.log(p.gather(1, target[:, None])).mean()

    @staticmethod
    def backward(ctx, grad_output):
        p, target = ctx.saved_tensors
        n = p.shape[0]
        grad = p.clone()
        grad[torch.arange(n), target] -= 1
        return grad * (grad_output / n), None
