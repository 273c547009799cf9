# mistake: keeps logits and target as plain ctx attributes instead of ctx.save_for_backward
# feedback: save_for_backward
# code: not-saved-for-backward
# rule: derivative
# fails: values
# score: 6/8
class SoftmaxCrossEntropy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, logits, target):
        shifted = logits - logits.max(dim=1, keepdim=True).values
        lse = torch.log(torch.exp(shifted).sum(dim=1))
        ctx.logits, ctx.target = logits, target
        return (lse - shifted.gather(1, target[:, None]).squeeze(1)).mean()

    @staticmethod
    def backward(ctx, grad_output):
        logits, target = ctx.logits, ctx.target
        n = logits.shape[0]
        grad = torch.softmax(logits, dim=1)
        grad[torch.arange(n), target] -= 1
        return grad * (grad_output / n), None
