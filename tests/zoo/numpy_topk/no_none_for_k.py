# mistake: backward returns only grad_x, without the None for k
# feedback: return (grad_x, None)
# code: wrong-arity
# rule: gradient
# fails: gradient
# score: 3/4
@torch.library.custom_op("course::numpy_topk", mutates_args=())
def numpy_topk(x: torch.Tensor, k: int) -> tuple[torch.Tensor, torch.Tensor]:
    data = x.numpy(force=True)
    order = np.ascontiguousarray(np.argsort(-data, axis=-1, kind="stable")[..., :k])
    values = np.take_along_axis(data, order, axis=-1)
    return torch.from_numpy(values).to(x.device), torch.from_numpy(order).to(x.device)


@numpy_topk.register_fake
def _(x, k):
    shape = (*x.shape[:-1], k)
    return x.new_empty(shape), x.new_empty(shape, dtype=torch.int64)



def numpy_topk_setup_context(ctx, inputs, output):
    x, k = inputs
    _, indices = output
    ctx.save_for_backward(indices)
    ctx.input_shape = x.shape


def numpy_topk_backward(ctx, grad_values, grad_indices):
    (indices,) = ctx.saved_tensors
    return grad_values.new_zeros(ctx.input_shape).scatter(-1, indices, grad_values)


numpy_topk.register_autograd(numpy_topk_backward, setup_context=numpy_topk_setup_context)
