# mistake: the unfilled exercise (still raises NotImplementedError)
# feedback: not implemented
# code: not-implemented
# rule: unanswered
# fails: values gradcheck opcheck compile export
# score: 0/5
@torch.library.custom_op("course::numpy_sin", mutates_args=())
def numpy_sin(x: torch.Tensor) -> torch.Tensor:
    # YOUR CODE HERE
    raise NotImplementedError()


@numpy_sin.register_fake
def _(x):
    # YOUR CODE HERE
    raise NotImplementedError()


def numpy_sin_setup_context(ctx, inputs, output):
    # YOUR CODE HERE
    raise NotImplementedError()


def numpy_sin_backward(ctx, grad_output):
    # YOUR CODE HERE
    raise NotImplementedError()


numpy_sin.register_autograd(numpy_sin_backward, setup_context=numpy_sin_setup_context)
