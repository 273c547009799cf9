# mistake: backward forgets to divide by N, although the loss is a mean over N rows
# feedback: divide by N
# code: forgot-divide-by-n
# rule: derivative
# fails: values gradcheck
# family: wrong-derivative
# score: 5/8
class SoftmaxCrossEntropy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, logits, target):
        shifted = logits - logits.max(dim=1, keepdim=True).values
        log_sum = torch.log(torch.exp(shifted).sum(dim=1))
        ctx.save_for_backward(logits, target)
        return (log_sum - shifted.gather(1, target[:, None]).squeeze(1)).mean()

    @staticmethod
    def backward(ctx, grad_output):
        logits, target = ctx.saved_tensors
        n = logits.shape[0]
        grad = torch.softmax(logits, dim=1)
        grad[torch.arange(n), target] -= 1
        return grad * grad_output, None
