# style: sorts with np.sort of -data and np.argsort in one pass, scatter_add_ into zeros_like of a saved x-shaped tensor
@torch.library.custom_op("course::numpy_topk", mutates_args=())
def numpy_topk(x: torch.Tensor, k: int) -> tuple[torch.Tensor, torch.Tensor]:
    data = x.detach().cpu().numpy()
    order = np.argsort(-data, axis=-1)[..., :k].copy()
    values = np.take_along_axis(data, order, axis=-1).copy()
    return torch.as_tensor(values, device=x.device), torch.as_tensor(order, dtype=torch.long, device=x.device)


@numpy_topk.register_fake
def _(x, k):
    values = x.new_empty((*x.shape[:-1], k))
    return values, torch.empty_like(values, dtype=torch.long)


def numpy_topk_setup_context(ctx, inputs, output):
    x, k = inputs
    ctx.save_for_backward(output[1])
    ctx.shape, ctx.dtype = tuple(x.shape), x.dtype


def numpy_topk_backward(ctx, grad_values, grad_indices):
    (indices,) = ctx.saved_tensors
    grad_x = torch.zeros(ctx.shape, dtype=grad_values.dtype, device=grad_values.device)
    grad_x.scatter_add_(-1, indices, grad_values)
    return grad_x, None


numpy_topk.register_autograd(numpy_topk_backward, setup_context=numpy_topk_setup_context)
