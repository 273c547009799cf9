# mistake: builds the gradient in a float32 buffer (torch.zeros(n, c), default dtype) and adds the softmax into it
# feedback: float32
# code: wrong-dtype
# rule: dtype
# fails: dtype
# score: 7/8
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
        n, classes = logits.shape
        grad = torch.zeros(n, classes)
        grad[torch.arange(n), target] = -1.0
        grad += torch.softmax(logits, dim=1)
        return grad * grad_output / n, None
