# mistake: keeps the notebook-01 style (ctx as forward's first argument, no setup_context), so torch.func refuses it
# feedback: setup_context
# code: no-setup-context
# rule: transforms
# fails: vmap grad
# score: 3/5
class Cube(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 3 * x ** 2
