# mistake: the unfilled exercise (still raises NotImplementedError)
# feedback: not implemented
# code: not-implemented
# fails: fake values
# score: 0/2
@torch.library.custom_op("course::rms_norm", mutates_args=())
def rms_norm(x: torch.Tensor, eps: float) -> tuple[torch.Tensor, torch.Tensor]:
    # YOUR CODE HERE
    raise NotImplementedError()


@rms_norm.register_fake
def _(x, eps):
    # YOUR CODE HERE
    raise NotImplementedError()
