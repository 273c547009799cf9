# mistake: forward drops ctx but setup_context is never written, so autograd still passes ctx to forward
# feedback: setup_context
# code: wrong-signature|no-setup-context
# rule: derivative
# fails: values gradgradcheck vmap grad jacrev
# score: 0/5
class Cube(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x):
        return x ** 3

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 3 * x ** 2
