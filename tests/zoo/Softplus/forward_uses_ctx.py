# mistake: forward takes ctx and saves there (the notebook-01 style, no setup_context), which torch.func refuses
# feedback: setup_context
# code: no-setup-context
# rule: jvp
# fails: jvp jacfwd vmap
# score: 3/6
class Softplus(torch.autograd.Function):
    generate_vmap_rule = True   # vmap (and so jacfwd and hessian) runs these methods on batched tensors

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        ctx.save_for_forward(x)
        return x.clamp(min=0) + torch.log1p(torch.exp(-x.abs()))

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * torch.sigmoid(x)

    @staticmethod
    def jvp(ctx, x_t):
        (x,) = ctx.saved_tensors
        return x_t * torch.sigmoid(x)
