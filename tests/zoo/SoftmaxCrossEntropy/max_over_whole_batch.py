# mistake: subtracts the max over the whole batch, not per row: a row far below the max underflows to log(0)
# feedback: log-sum-exp trick
# code: overflow
# rule: stable
# fails: stable
# score: 6/8
class SoftmaxCrossEntropy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, logits, target):
        shifted = logits - logits.max()
        log_sum = torch.log(torch.exp(shifted).sum(dim=1))
        ctx.save_for_backward(logits, target)
        return (log_sum - shifted.gather(1, target[:, None]).squeeze(1)).mean()

    @staticmethod
    def backward(ctx, grad_output):
        logits, target = ctx.saved_tensors
        n = logits.shape[0]
        grad = torch.softmax(logits, dim=1)
        grad[torch.arange(n), target] -= 1
        return grad * (grad_output / n), None
