# style: torch.add with alpha=, setup_context, gradients built only where needed in one expression each
class ScaledAdd(torch.autograd.Function):
    @staticmethod
    def forward(x, y, alpha):
        return torch.add(x, y, alpha=alpha)

    @staticmethod
    def setup_context(ctx, inputs, output):
        _, _, ctx.alpha = inputs

    @staticmethod
    def backward(ctx, grad_output):
        need_x, need_y, _ = ctx.needs_input_grad
        return (grad_output if need_x else None,
                grad_output.mul(ctx.alpha) if need_y else None,
                None)
