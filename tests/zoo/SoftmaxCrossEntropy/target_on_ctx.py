# mistake: saves the logits with save_for_backward but keeps target as a plain ctx attribute
# feedback: changing target in place
# code: not-saved-for-backward
# rule: derivative
# fails: values
# score: 6/8
class SoftmaxCrossEntropy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, logits, target):
        shifted = logits - logits.max(dim=1, keepdim=True).values
        lse = torch.log(torch.exp(shifted).sum(dim=1))
        ctx.save_for_backward(logits)
        ctx.target = target
        return (lse - shifted.gather(1, target[:, None]).squeeze(1)).mean()

    @staticmethod
    def backward(ctx, grad_output):
        (logits,) = ctx.saved_tensors
        n = logits.shape[0]
        grad = torch.softmax(logits, dim=1)
        grad[torch.arange(n), ctx.target] -= 1
        return grad * (grad_output / n), None
