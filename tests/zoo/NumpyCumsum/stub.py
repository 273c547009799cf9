# mistake: the unfilled exercise (still raises NotImplementedError)
# feedback: not implemented
# code: not-implemented
# rule: unanswered
# fails: values gradcheck once_differentiable
# score: 0/3
class NumpyCumsum(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, dim):
        # YOUR CODE HERE
        raise NotImplementedError()

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output):
        # YOUR CODE HERE
        raise NotImplementedError()
