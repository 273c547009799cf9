# style: backward gathers through the inverse permutation (indices.argsort()), torch.sort(stable=True)
class SortWithIndices(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        values, indices = torch.sort(x, dim=-1, stable=True)
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        return values, indices

    @staticmethod
    def backward(ctx, grad_values, grad_indices):
        (indices,) = ctx.saved_tensors
        return grad_values.gather(-1, indices.argsort(dim=-1))
