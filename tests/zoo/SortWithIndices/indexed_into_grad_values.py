# mistake: permutes grad_values in place with an indexed assignment (grad_values[..., :] = ...)
# feedback: grad_output
# code: inplace-grad-output
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
        grad_values[...] = grad_values.gather(-1, indices.argsort(dim=-1))
        return grad_values
