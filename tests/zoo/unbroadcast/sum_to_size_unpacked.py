# mistake: grad.sum_to_size(*shape), a call with no size at all for a 0-d target
# feedback: sum_to_size() missing
# code: unbroadcast-raised
# rule: leading
# fails: values
# score: 2/3
def unbroadcast(grad, shape):
    return grad.sum_to_size(*shape)
