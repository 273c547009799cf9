# style: the weights computed once as torch.softmax in both directions, grads returned as a list built up
# step by step, the jvp written with torch.linalg.vecdot along dim, ctx.needs_input_grad consulted
class LogSumExp(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x, dim, keepdim):
        biggest = x.amax(dim, keepdim=True).nan_to_num(0.0, posinf=0.0, neginf=0.0)
        value = (x - biggest).exp().sum(dim, keepdim=True).log() + biggest
        return value if keepdim else value.squeeze(dim)

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, dim, keepdim = inputs
        ctx.dim, ctx.keepdim = dim, keepdim
        ctx.save_for_backward(x, output)
        ctx.save_for_forward(x, output)

    @staticmethod
    def backward(ctx, grad_output):
        x, output = ctx.saved_tensors
        grads = [None, None, None]
        if ctx.needs_input_grad[0]:
            g = grad_output if ctx.keepdim else grad_output.unsqueeze(ctx.dim)
            o = output if ctx.keepdim else output.unsqueeze(ctx.dim)
            grads[0] = g * (x - o).exp()
        return tuple(grads)

    @staticmethod
    def jvp(ctx, x_t, dim_t, keepdim_t):
        x, output = ctx.saved_tensors
        o = output if ctx.keepdim else output.unsqueeze(ctx.dim)
        tangent = torch.linalg.vecdot((x - o).exp(), x_t, dim=ctx.dim)
        return tangent.unsqueeze(ctx.dim) if ctx.keepdim else tangent
