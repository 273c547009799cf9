# mistake: the unfilled exercise (still raises NotImplementedError)
# feedback: not implemented
# code: not-implemented
# rule: unanswered
# fails: values memory frozen_input
# score: 0/4
def checkpointed_mlp(x, layers):
    # YOUR CODE HERE
    raise NotImplementedError()
