# mistake: takes the last k of np.argsort (the k largest, but smallest of them first)
# feedback: largest first
# code: wrong-forward
# rule: values
# fails: values
# score: 3/4
@torch.library.custom_op("course::numpy_topk", mutates_args=())
def numpy_topk(x: torch.Tensor, k: int) -> tuple[torch.Tensor, torch.Tensor]:
    data = x.numpy(force=True)
    order = np.ascontiguousarray(np.argsort(data, axis=-1)[..., -k:])
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
    grad_x = grad_values.new_zeros(ctx.input_shape).scatter(-1, indices, grad_values)
    return grad_x, None


numpy_topk.register_autograd(numpy_topk_backward, setup_context=numpy_topk_setup_context)
