# mistake: the textbook log-sum-exp, m + log(sum(exp(z - m))), then minus the target's logit: the max is added back and float32 keeps three digits of a small loss next to logits of 1e4
# feedback: never add it back
# code: max-added-back
# rule: stable
# fails: stable
# score: 6/8
class SoftmaxCrossEntropy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, logits, target):
        m = logits.max(dim=1, keepdim=True).values
        lse = m.squeeze(1) + torch.log(torch.exp(logits - m).sum(dim=1))
        ctx.save_for_backward(logits, target)
        return (lse - logits.gather(1, target[:, None]).squeeze(1)).mean()

    @staticmethod
    def backward(ctx, grad_output):
        logits, target = ctx.saved_tensors
        n = logits.shape[0]
        grad = torch.softmax(logits, dim=1)
        grad[torch.arange(n), target] -= 1
        return grad * (grad_output / n), None
