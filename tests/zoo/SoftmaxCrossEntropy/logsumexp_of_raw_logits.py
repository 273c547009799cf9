# mistake: torch.logsumexp of the raw logits minus the target's logit: logsumexp adds the max back, and float32 loses the loss's digits at logits of 1e4
# feedback: never add it back
# code: max-added-back
# rule: stable
# fails: stable
# score: 6/8
import torch.nn.functional as F


class SoftmaxCrossEntropy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, logits, target):
        ctx.save_for_backward(logits, target)
        picked = logits.gather(1, target.unsqueeze(1)).squeeze(1)
        return (torch.logsumexp(logits, dim=1) - picked).mean()

    @staticmethod
    def backward(ctx, grad_output):
        logits, target = ctx.saved_tensors
        onehot = F.one_hot(target, logits.shape[1]).to(logits.dtype)
        return (torch.softmax(logits, dim=1) - onehot) * grad_output / logits.shape[0], None
