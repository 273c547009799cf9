# mistake: the unfilled exercise (still raises NotImplementedError)
# feedback: not implemented
# code: not-implemented
# rule: unanswered
# fails: values vmap
# score: 0/2
class RunningSum(torch.autograd.Function):
    @staticmethod
    def forward(x):
        # YOUR CODE HERE
        raise NotImplementedError()

    @staticmethod
    def setup_context(ctx, inputs, output):
        # YOUR CODE HERE
        raise NotImplementedError()

    @staticmethod
    def backward(ctx, grad_output):
        # YOUR CODE HERE
        raise NotImplementedError()

    @staticmethod
    def vmap(info, in_dims, x):
        # YOUR CODE HERE
        raise NotImplementedError()
