# mistake: the unfilled exercise (still raises NotImplementedError)
# feedback: not implemented
# code: not-implemented
# rule: unanswered
# fails: values gradient fake opcheck
# score: 0/4
@torch.library.custom_op("course::numpy_topk", mutates_args=())
def numpy_topk(x: torch.Tensor, k: int) -> tuple[torch.Tensor, torch.Tensor]:
    # YOUR CODE HERE
    raise NotImplementedError()


@numpy_topk.register_fake
def _(x, k):
    # YOUR CODE HERE
    raise NotImplementedError()


def numpy_topk_setup_context(ctx, inputs, output):
    # YOUR CODE HERE
    raise NotImplementedError()


def numpy_topk_backward(ctx, grad_values, grad_indices):
    # YOUR CODE HERE
    raise NotImplementedError()


numpy_topk.register_autograd(numpy_topk_backward, setup_context=numpy_topk_setup_context)
