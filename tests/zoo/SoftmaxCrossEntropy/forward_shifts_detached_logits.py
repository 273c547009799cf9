# mistake: shifts logits.detach() (the caller's storage) in place by the row max: the caller's logits are changed behind autograd's back
# feedback: in place
# code: modifies-input|wrong-derivative
# rule: derivative
# fails: values gradcheck grad_output
# score: 4/8
class SoftmaxCrossEntropy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, logits, target):
        logits = logits.detach()
        logits.sub_(logits.max(dim=1, keepdim=True).values)
        ctx.save_for_backward(logits.clone(), target)
        log_sum = torch.log(torch.exp(logits).sum(dim=1))
        return (log_sum - logits.gather(1, target[:, None]).squeeze(1)).mean()

    @staticmethod
    def backward(ctx, grad_output):
        logits, target = ctx.saved_tensors
        n = logits.shape[0]
        grad = torch.softmax(logits, dim=1)
        grad[torch.arange(n), target] -= 1
        return grad * (grad_output / n), None
