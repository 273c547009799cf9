# mistake: recomputes with autograd in backward but forgets torch.enable_grad (grad mode is off in backward)
# feedback: does not require grad
# code: exception|no-graph
# rule: derivative
# fails: gradcheck graph values
# score: 2/5
class RecomputeSiLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * torch.sigmoid(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        leaf = x.detach().requires_grad_(True)
        y = leaf * torch.sigmoid(leaf)
        (grad,) = torch.autograd.grad(y, leaf, grad_output)
        return grad
