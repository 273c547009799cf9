# mistake: writes the scattered gradient back into grad_values (copy_) to reuse its memory
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
        return grad_values.copy_(torch.zeros_like(grad_values).scatter(-1, indices, grad_values))
