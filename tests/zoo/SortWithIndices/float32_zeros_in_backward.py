# mistake: scatters into torch.zeros(grad_values.shape) (default float32) for a float64 gradient
# feedback: float32
# code: wrong-dtype
# rule: sorted
# fails: values
# score: 2/3
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
        return torch.zeros(grad_values.shape).scatter(-1, indices, grad_values.float())
