# mistake: converts the indices to int32 (np.argsort(...).astype(np.int32)) to save memory
# feedback: int64
# code: wrong-index-dtype
# rule: indices
# fails: indices
# score: 2/3
class SortWithIndices(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        a = x.detach().cpu().numpy()
        idx = np.argsort(a, axis=-1, kind="stable")
        indices = torch.from_numpy(idx.astype(np.int32))
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        return torch.from_numpy(np.take_along_axis(a, idx, axis=-1)), indices

    @staticmethod
    def backward(ctx, grad_values, grad_indices):
        (indices,) = ctx.saved_tensors
        return torch.zeros_like(grad_values).scatter(-1, indices.long(), grad_values)
