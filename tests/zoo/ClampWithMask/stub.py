# mistake: the unfilled exercise (still raises NotImplementedError)
# feedback: not implemented
# code: not-implemented
# rule: unanswered
# fails: values mask gradcheck
# score: 0/3
class ClampWithMask(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, lo, hi):
        # YOUR CODE HERE
        raise NotImplementedError()

    @staticmethod
    def backward(ctx, grad_output, grad_mask):
        # YOUR CODE HERE
        raise NotImplementedError()
