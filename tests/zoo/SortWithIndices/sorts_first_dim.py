# mistake: sorts along the first dim (NumPy axis=0) instead of the last
# feedback: last dim
# code: wrong-forward
# rule: sorted
# fails: values
# score: 2/3
class SortWithIndices(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        a = x.detach().cpu().numpy()
        idx = np.argsort(a, axis=0)
        indices = torch.from_numpy(idx)
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        return torch.from_numpy(np.take_along_axis(a, idx, axis=0)), indices

    @staticmethod
    def backward(ctx, grad_values, grad_indices):
        (indices,) = ctx.saved_tensors
        return torch.zeros_like(grad_values).scatter(0, indices, grad_values)
