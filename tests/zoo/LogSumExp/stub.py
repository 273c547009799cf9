# mistake: the unfilled exercise (still raises NotImplementedError)
# feedback: not implemented
# code: not-implemented
# rule: unanswered
# fails: values stability shapes none gradcheck gradgradcheck vmap forward_mode memory
# score: 0/10
class LogSumExp(torch.autograd.Function):
    generate_vmap_rule = True   # vmap runs forward, backward and jvp on batched tensors itself

    @staticmethod
    def forward(x, dim, keepdim):
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
    def jvp(ctx, x_t, dim_t, keepdim_t):          # dim_t and keepdim_t are None (not tensors)
        # YOUR CODE HERE
        raise NotImplementedError()
