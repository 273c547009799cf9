# mistake: values always float32 (np.float32 cast)
# feedback: dtype
# code: wrong-dtype|float32-precision
# rule: sorted
# fails: gradcheck values
# score: 1/3
class SortWithIndices(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        a = x.detach().cpu().numpy()
        idx = np.argsort(a, axis=-1, kind="stable")
        values = torch.from_numpy(np.take_along_axis(a, idx, axis=-1).astype(np.float32))
        indices = torch.from_numpy(idx)
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        return values, indices

    @staticmethod
    def backward(ctx, grad_values, grad_indices):
        (indices,) = ctx.saved_tensors
        return torch.zeros_like(grad_values).scatter(-1, indices, grad_values)
