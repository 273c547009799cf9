# mistake: keeps x on ctx (ctx.x = x) and sorts it again in backward to find the permutation
# feedback: changing x in place
# code: not-saved-for-backward
# rule: sorted
# fails: values
# score: 2/3
class SortWithIndices(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        values, indices = torch.sort(x, dim=-1, stable=True)
        ctx.mark_non_differentiable(indices)
        ctx.x = x
        return values, indices

    @staticmethod
    def backward(ctx, grad_values, grad_indices):
        indices = torch.sort(ctx.x, dim=-1, stable=True).indices
        return torch.zeros_like(grad_values).scatter(-1, indices, grad_values)
