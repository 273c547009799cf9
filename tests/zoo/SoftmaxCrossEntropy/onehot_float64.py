# mistake: builds the one-hot with .double(), so float32 logits get a float64 gradient (the engine hides it)
# feedback: dtype
# code: wrong-dtype
# rule: dtype
# fails: dtype
# score: 7/8
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
        onehot = F.one_hot(target, logits.shape[1]).double()
        return (torch.softmax(logits, dim=1) - onehot) * (grad_output / logits.shape[0]), None
