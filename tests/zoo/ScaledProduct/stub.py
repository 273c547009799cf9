# mistake: the unfilled exercise (still raises NotImplementedError)
# feedback: not implemented
# code: not-implemented
# rule: unanswered
# fails: values jvp
# score: 0/2
class ScaledProduct(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x, y, alpha):
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
    def jvp(ctx, x_t, y_t, alpha_t):
        # YOUR CODE HERE
        raise NotImplementedError()
