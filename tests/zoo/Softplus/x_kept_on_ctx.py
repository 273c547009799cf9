# mistake: setup_context keeps x for backward in a tuple on ctx (ctx.kept = (x,)) instead of ctx.save_for_backward(x): no version counter guards it
# feedback: save_for_backward
# code: not-saved-for-backward
# rule: derivative
# fails: values
# score: 5/6
class Softplus(torch.autograd.Function):
    generate_vmap_rule = True   # vmap runs these methods on batched tensors (jacfwd: jvp; hessian: both)

    @staticmethod
    def forward(x):
        return x.clamp(min=0) + torch.log1p(torch.exp(-x.abs()))

    @staticmethod
    def setup_context(ctx, inputs, output):
        (x,) = inputs
        ctx.kept = (x,)
        ctx.save_for_forward(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.kept
        return grad_output * torch.sigmoid(x)

    @staticmethod
    def jvp(ctx, x_t):
        (x,) = ctx.kept
        return x_t * torch.sigmoid(x)
