# mistake: ignores dim and always sums along the last axis
# feedback: dim
# code: wrong-forward
# rule: derivative
# fails: values
# score: 2/3
class NumpyCumsum(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, dim):
        return torch.from_numpy(np.cumsum(x.detach().cpu().numpy(), axis=-1)).to(x.device)

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output):
        g = grad_output.cpu().numpy()
        grad = np.flip(np.cumsum(np.flip(g, -1), axis=-1), -1).copy()
        return torch.from_numpy(grad).to(grad_output.device), None
