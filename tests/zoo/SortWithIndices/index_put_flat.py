# mistake: backward puts the gradient with flat indexing, right for 1-d only
# feedback: SCATTER
# code: wrong-derivative
# rule: sorted
# fails: gradcheck values
# score: 1/3
class SortWithIndices(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        values, indices = torch.sort(x.detach(), dim=-1, stable=True)
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        return values, indices

    @staticmethod
    def backward(ctx, grad_values, grad_indices):
        (indices,) = ctx.saved_tensors
        grad = torch.zeros_like(grad_values)
        grad[..., indices] = grad_values
        return grad
