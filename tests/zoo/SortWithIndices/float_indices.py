# mistake: converts the indices to x's float dtype, so they are not int64 (and they require grad)
# feedback: int64
# code: wrong-index-dtype
# rule: indices
# fails: indices
# score: 2/3
class SortWithIndices(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        values, indices = torch.sort(x, dim=-1)
        ctx.save_for_backward(indices)
        return values, indices.to(x.dtype)

    @staticmethod
    def backward(ctx, grad_values, grad_indices):
        (indices,) = ctx.saved_tensors
        return torch.zeros_like(grad_values).scatter(-1, indices, grad_values)
