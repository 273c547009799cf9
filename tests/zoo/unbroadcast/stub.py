# mistake: the unfilled exercise (still raises NotImplementedError)
# feedback: not implemented
# code: not-implemented
# rule: unanswered
# fails: values size1 many
# score: 0/3
def unbroadcast(grad, shape):
    # YOUR CODE HERE
    raise NotImplementedError()
