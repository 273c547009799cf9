# style: saves x and y (backward does not need them), torch.add(x, y, alpha=alpha), needs_input_grad unpacked
class ScaledAdd(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y, alpha):
        ctx.save_for_backward(x, y)
        ctx.alpha = alpha
        return torch.add(x, y, alpha=alpha)

    @staticmethod
    def backward(ctx, grad_output):
        needs_x, needs_y, _ = ctx.needs_input_grad
        return (grad_output if needs_x else None,
                grad_output.mul(ctx.alpha) if needs_y else None,
                None)
