# mistake: forward always keeps the reduced dimension, whatever keepdim says
# feedback: keepdim
# code: wrong-output-shape|no-jvp
# rule: values
# fails: values stability shapes vmap forward_mode
# family: wrong-shape
# score: 4/10
class LogSumExp(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x, dim, keepdim):
        m = x.amax(dim=dim, keepdim=True)
        return m + torch.log(torch.exp(x - m).sum(dim=dim, keepdim=True))

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, dim, keepdim = inputs
        ctx.dim = dim
        ctx.keepdim = keepdim
        ctx.save_for_backward(x, output)

    @staticmethod
    def backward(ctx, grad_output):
        x, out = ctx.saved_tensors
        return grad_output * torch.exp(x - out), None, None
