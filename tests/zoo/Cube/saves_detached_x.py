# mistake: saves x.detach() (to "avoid keeping the graph"): backward's result has no history, so it cannot be differentiated again
# feedback: no .detach()
# code: not-twice-differentiable
# rule: double_backward
# fails: gradgradcheck
# score: 4/5
class Cube(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x):
        return x ** 3

    @staticmethod
    def setup_context(ctx, inputs, output):
        (x,) = inputs
        ctx.save_for_backward(x.detach())

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 3 * x ** 2
