# mistake: returns the indices and keeps them as a plain ctx attribute for backward (not save_for_backward)
# feedback: changing the indices in place
# code: not-saved-for-backward
# rule: sorted
# fails: values
# score: 2/3
class SortWithIndices(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        values, indices = torch.sort(x, dim=-1, stable=True)
        ctx.mark_non_differentiable(indices)
        ctx.indices = indices
        return values, indices

    @staticmethod
    def backward(ctx, grad_values, grad_indices):
        return torch.zeros_like(grad_values).scatter(-1, ctx.indices, grad_values)
