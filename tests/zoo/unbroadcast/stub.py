# mistake: the unfilled exercise (still raises NotImplementedError)
# feedback: not implemented
# code: not-implemented
# fails: values size1 many
# score: 0/3
def unbroadcast(grad, shape):
    # YOUR CODE HERE
    raise NotImplementedError()
