# mistake: backward ignores grad_output (right only when the loss is used as is, with grad_output = 1)
# feedback: grad_output
# code: ignores-grad-output
# rule: derivative
# fails: gradcheck grad_output
# score: 6/8
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
        return grad / n, None
