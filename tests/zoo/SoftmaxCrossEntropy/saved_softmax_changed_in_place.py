# mistake: saves the softmax from forward and subtracts the one-hot from it in place in backward: a second backward through the same graph raises
# feedback: in-place
# code: inplace-error
# rule: derivative
# fails: gradcheck
# score: 7/8
class SoftmaxCrossEntropy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, logits, target):
        shifted = logits - logits.max(dim=1, keepdim=True).values
        log_sum = torch.log(torch.exp(shifted).sum(dim=1))
        probs = torch.exp(shifted - log_sum[:, None])
        ctx.save_for_backward(probs, target)
        return (log_sum - shifted.gather(1, target[:, None]).squeeze(1)).mean()

    @staticmethod
    def backward(ctx, grad_output):
        probs, target = ctx.saved_tensors
        n = probs.shape[0]
        probs[torch.arange(n), target] -= 1
        return probs * grad_output / n, None
