# mistake: divides grad_output in place by N (grad_output /= n) before scaling (softmax - onehot): grad_output belongs to autograd
# feedback: wrote into grad_output
# code: inplace-grad-output
# rule: derivative
# fails: values
# score: 6/8
class SoftmaxCrossEntropy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, logits, target):
        m = logits.max(dim=1, keepdim=True).values
        shifted = logits - m
        lse = shifted.exp().sum(dim=1, keepdim=True).log()
        log_probs = shifted - lse
        ctx.save_for_backward(log_probs.exp(), target)
        return -log_probs.gather(1, target[:, None]).mean()

    @staticmethod
    def backward(ctx, grad_output):
        probs, target = ctx.saved_tensors
        grad_output /= probs.shape[0]
        onehot = torch.zeros_like(probs).scatter_(1, target[:, None], 1.0)
        return (probs - onehot) * grad_output, None
