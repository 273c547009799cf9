# mistake: setup_context saves x only with save_for_backward; jvp reads ctx.saved_tensors, which is empty there
# feedback: save_for_forward
# code: nothing-saved
# rule: jvp
# fails: jvp jacfwd
# score: 4/6
class Softplus(torch.autograd.Function):
    generate_vmap_rule = True   # vmap (and so jacfwd and hessian) runs these methods on batched tensors

    @staticmethod
    def forward(x):
        return x.clamp(min=0) + torch.log1p(torch.exp(-x.abs()))

    @staticmethod
    def setup_context(ctx, inputs, output):
        (x,) = inputs
        ctx.save_for_backward(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * torch.sigmoid(x)

    @staticmethod
    def jvp(ctx, x_t):
        (x,) = ctx.saved_tensors
        return x_t * torch.sigmoid(x)
