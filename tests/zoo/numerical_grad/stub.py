# mistake: the unfilled exercise (still raises NotImplementedError)
# feedback: not implemented
# code: not-implemented
# rule: unanswered
# fails: values central untouched dtype
# score: 0/4
def numerical_grad(f, x, eps=1e-6):
    """Central-difference estimate of the gradient of the scalar f(x), with x's shape and dtype."""
    # YOUR CODE HERE
    raise NotImplementedError()
