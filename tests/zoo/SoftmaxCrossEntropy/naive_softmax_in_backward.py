# mistake: a stable forward, but backward recomputes the softmax as exp(z) / sum(exp(z)), which overflows
# feedback: backward's softmax overflowed
# code: overflow-backward
# rule: stable
# fails: stable
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
        e = torch.exp(logits)
        grad = e / e.sum(dim=1, keepdim=True)
        grad[torch.arange(n), target] -= 1
        return grad * (grad_output / n), None
