# mistake: forward drops ctx but setup_context is never written (the split style's other half: transforms), so autograd still passes ctx to forward; the derivative's first-order tests take the reference's setup_context, second derivatives cannot be taken of a Function that does not run
# feedback: setup_context
# code: wrong-signature|no-setup-context
# rule: transforms
# fails: gradgradcheck vmap grad
# score: 2/5
class Cube(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x):
        return x ** 3

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 3 * x ** 2
