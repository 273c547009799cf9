# mistake: the unfilled exercise (still raises NotImplementedError)
# feedback: not implemented
# code: not-implemented
# rule: unanswered
# fails: values gradgradcheck vmap grad jacrev
# score: 0/5
class Cube(torch.autograd.Function):
    generate_vmap_rule = True   # vmap runs forward and backward on batched tensors itself

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
