# style: F.softplus's own threshold in forward (x above 20 returns x), the derivative from torch.special.expit
class Softplus(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x):
        return torch.where(x > 20, x, torch.log1p(torch.exp(torch.clamp(x, max=20))))

    @staticmethod
    def setup_context(ctx, inputs, output):
        x = inputs[0]
        ctx.save_for_backward(x)
        ctx.save_for_forward(x)

    @staticmethod
    def backward(ctx, grad_output):
        x = ctx.saved_tensors[0]
        return torch.special.expit(x) * grad_output

    @staticmethod
    def jvp(ctx, x_t):
        x = ctx.saved_tensors[0]
        return torch.special.expit(x) * x_t
