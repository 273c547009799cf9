# mistake: the unfilled exercise (still raises NotImplementedError)
# feedback: not implemented
# code: not-implemented
# rule: unanswered
# fails: values gradcheck jvp jacfwd hessian vmap
# score: 0/6
class Softplus(torch.autograd.Function):
    generate_vmap_rule = True   # vmap (and so jacfwd and hessian) runs these methods on batched tensors

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
    def jvp(ctx, x_t):
        # YOUR CODE HERE
        raise NotImplementedError()
