# mistake: computes the softmax of backward in float32 and casts back: 1e-8 off in float64, and logits of 3e4 lose their digits
# feedback: lost precision
# code: wrong-gradient|overflow-backward
# rule: derivative stable
# fails: values stable
# score: 4/8
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
        grad = torch.softmax(logits, dim=1, dtype=torch.float32).to(logits.dtype)
        grad[torch.arange(n), target] -= 1
        return grad * (grad_output / n), None
