# style: torch.library.register_fake / register_autograd by the operator's name, a reversed argsort, saving x
@torch.library.custom_op("course::numpy_topk", mutates_args=())
def numpy_topk(x: torch.Tensor, k: int) -> tuple[torch.Tensor, torch.Tensor]:
    arr = x.numpy(force=True)
    idx = np.flip(np.argsort(arr, axis=-1), axis=-1)[..., :k].copy()
    vals = np.take_along_axis(arr, idx, axis=-1)
    return torch.from_numpy(vals).to(x.device), torch.from_numpy(idx).to(x.device)


@torch.library.register_fake("course::numpy_topk")
def _(x, k):
    vals = x.new_empty(x.shape[:-1] + (k,))
    return vals, torch.empty_like(vals, dtype=torch.int64)


def numpy_topk_setup_context(ctx, inputs, output):
    x, _ = inputs
    ctx.save_for_backward(x, output[1])


def numpy_topk_backward(ctx, grad_values, grad_indices):
    x, idx = ctx.saved_tensors
    return torch.zeros_like(x).scatter(-1, idx, grad_values), None


torch.library.register_autograd("course::numpy_topk", numpy_topk_backward, setup_context=numpy_topk_setup_context)
