# mistake: shifts the logits by their row max in place (logits.sub_(...)) after saving a copy: the caller's logits are changed
# feedback: in place
# code: modifies-input|wrong-derivative
# rule: derivative
# fails: values gradcheck grad_output
# score: 4/8
class SoftmaxCrossEntropy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, logits, target):
        ctx.save_for_backward(logits.clone(), target)
        logits.sub_(logits.max(dim=1, keepdim=True).values)
        log_sum = torch.log(logits.exp().sum(dim=1))
        return (log_sum - logits.gather(1, target[:, None]).squeeze(1)).mean()

    @staticmethod
    def backward(ctx, grad_output):
        logits, target = ctx.saved_tensors
        n = logits.shape[0]
        grad = torch.softmax(logits, dim=1)
        grad[torch.arange(n), target] -= 1
        return grad * (grad_output / n), None
