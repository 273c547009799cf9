# mistake: the unfilled exercise (still raises NotImplementedError)
# feedback: not implemented
# code: not-implemented
# fails: gradient opcheck rstd saved
# score: 0/4
def rms_norm_setup_context(ctx, inputs, output):
    # YOUR CODE HERE
    raise NotImplementedError()


def rms_norm_backward(ctx, grad_out, grad_rstd):
    # YOUR CODE HERE
    raise NotImplementedError()


rms_norm.register_autograd(rms_norm_backward, setup_context=rms_norm_setup_context)
