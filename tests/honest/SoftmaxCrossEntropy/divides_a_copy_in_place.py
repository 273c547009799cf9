# style: divides a copy of grad_output by N in place (g = grad_output.clone(); g /= n): the copy is backward's own
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
        g = grad_output.clone()
        g /= probs.shape[0]
        onehot = torch.zeros_like(probs).scatter_(1, target[:, None], 1.0)
        return (probs - onehot) * g, None
