# mistake: backward and jvp compute the derivative as exp(x) / (1 + exp(x)), which is inf / inf = NaN for large x
# feedback: inf / inf
# code: derivative-overflow
# rule: derivative jvp
# fails: values jvp jacfwd
# score: 3/6
class Softplus(torch.autograd.Function):
    generate_vmap_rule = True   # vmap (and so jacfwd and hessian) runs these methods on batched tensors

    @staticmethod
    def forward(x):
        return x.clamp(min=0) + torch.log1p(torch.exp(-x.abs()))

    @staticmethod
    def setup_context(ctx, inputs, output):
        (x,) = inputs
        ctx.save_for_backward(x)
        ctx.save_for_forward(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * torch.exp(x) / (1 + torch.exp(x))

    @staticmethod
    def jvp(ctx, x_t):
        (x,) = ctx.saved_tensors
        return x_t * torch.exp(x) / (1 + torch.exp(x))
