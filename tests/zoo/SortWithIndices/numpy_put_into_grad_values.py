# mistake: NumPy's put_along_axis into grad_values' own memory
# feedback: wrote into grad_output
# code: inplace-grad-output
# rule: sorted
# fails: values
# score: 2/3
class SortWithIndices(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        a = x.detach().cpu().numpy()
        idx = np.argsort(a, axis=-1, kind="stable")
        indices = torch.from_numpy(idx)
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        return torch.from_numpy(np.take_along_axis(a, idx, axis=-1)), indices

    @staticmethod
    def backward(ctx, grad_values, grad_indices):
        (indices,) = ctx.saved_tensors
        g = grad_values.numpy()
        np.put_along_axis(g, indices.numpy(), g.copy(), axis=-1)
        return grad_values
