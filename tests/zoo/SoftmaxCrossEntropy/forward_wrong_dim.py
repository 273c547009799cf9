# mistake: the forward's max and log-sum-exp run over the batch (dim=0) instead of the classes (dim=1)
# feedback: dim=1
# code: wrong-loss|wrong-derivative
# rule: derivative
# fails: values gradcheck
# score: 5/8
class SoftmaxCrossEntropy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, logits, target):
        shifted = logits - logits.max(dim=0, keepdim=True).values
        log_sum = torch.log(torch.exp(shifted).sum(dim=0, keepdim=True))
        ctx.save_for_backward(logits, target)
        return (log_sum - shifted).gather(1, target[:, None]).mean()

    @staticmethod
    def backward(ctx, grad_output):
        logits, target = ctx.saved_tensors
        n = logits.shape[0]
        grad = torch.softmax(logits, dim=1)
        grad[torch.arange(n), target] -= 1
        return grad * (grad_output / n), None
