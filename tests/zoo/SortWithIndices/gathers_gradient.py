# mistake: backward gathers grad_values with the indices instead of scattering them (the inverse permutation)
# feedback: scatter
# code: wrong-derivative
# rule: sorted
# fails: values gradcheck
# score: 1/3
class SortWithIndices(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        values, indices = torch.sort(x, dim=-1)
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        return values, indices

    @staticmethod
    def backward(ctx, grad_values, grad_indices):
        (indices,) = ctx.saved_tensors
        return grad_values.gather(-1, indices)
