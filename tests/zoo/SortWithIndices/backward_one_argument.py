# mistake: backward takes only the values' gradient, but it receives one gradient per output (values and indices)
# feedback: one gradient per forward output
# code: wrong-signature
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
    def backward(ctx, grad_values):
        (indices,) = ctx.saved_tensors
        return torch.zeros_like(grad_values).scatter(-1, indices, grad_values)
