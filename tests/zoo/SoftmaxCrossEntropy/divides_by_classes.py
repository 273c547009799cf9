# mistake: divides by the number of classes (logits.shape[1]) instead of the batch size
# feedback: wrong
# code: wrong-derivative|wrong-gradient
# rule: derivative
# fails: gradcheck values
# score: 5/8
class SoftmaxCrossEntropy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, logits, target):
        shifted = logits - logits.max(dim=1, keepdim=True).values
        lse = torch.log(torch.exp(shifted).sum(dim=1))
        ctx.save_for_backward(logits, target)
        return (lse - shifted.gather(1, target[:, None]).squeeze(1)).mean()

    @staticmethod
    def backward(ctx, grad_output):
        logits, target = ctx.saved_tensors
        grad = torch.softmax(logits, dim=1)
        grad[torch.arange(logits.shape[0]), target] -= 1
        return grad * grad_output / logits.shape[1], None
