# style: torch.pow in forward, backward returns a one-element tuple and keeps the exponent as a plain ctx attribute
class Cube(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x):
        return torch.pow(x, 3)

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.n = 3
        ctx.save_for_backward(*inputs)

    @staticmethod
    def backward(ctx, grad_output):
        x = ctx.saved_tensors[0]
        return (grad_output * ctx.n * torch.pow(x, ctx.n - 1),)
