# mistake: a.sort() on x's own NumPy view (in place), after argsort: the caller's x comes back sorted
# feedback: in place
# code: modifies-input|wrong-derivative
# rule: sorted
# fails: values gradcheck
# score: 1/3
class SortWithIndices(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        a = x.detach().numpy()
        idx = np.argsort(a, axis=-1, kind="stable")
        a.sort(axis=-1, kind="stable")
        values = torch.from_numpy(a.copy())
        indices = torch.from_numpy(idx)
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        return values, indices

    @staticmethod
    def backward(ctx, grad_values, grad_indices):
        (indices,) = ctx.saved_tensors
        return torch.zeros_like(grad_values).scatter(-1, indices, grad_values)
