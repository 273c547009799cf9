# mistake: backward returns a (zero) gradient for the indices output too: one per output instead of one per input
# feedback: one value per forward input
# code: wrong-arity
# rule: sorted
# fails: values gradcheck
# score: 1/3
class SortWithIndices(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        a = x.detach().cpu().numpy()
        idx = np.argsort(a, axis=-1)
        indices = torch.from_numpy(idx)
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        return torch.from_numpy(np.take_along_axis(a, idx, axis=-1)), indices

    @staticmethod
    def backward(ctx, grad_values, grad_indices):
        (indices,) = ctx.saved_tensors
        return torch.zeros_like(grad_values).scatter(-1, indices, grad_values), torch.zeros_like(indices)
