# mistake: divides by logits.numel() (N * C) instead of the batch size N
# feedback: / N
# code: wrong-gradient|wrong-derivative
# rule: derivative
# fails: values gradcheck
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
        grad = torch.softmax(logits, dim=1)
        grad[torch.arange(logits.shape[0]), target] -= 1
        return grad * grad_output / logits.numel(), None
