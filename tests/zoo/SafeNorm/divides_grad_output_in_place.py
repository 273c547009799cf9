# mistake: divides grad_output in place by the (guarded) norm (grad_output /= ...), then times x: grad_output belongs to autograd
# feedback: in place
# code: inplace-grad-output
# rule: derivative
# fails: values
# score: 4/6
class SafeNorm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        norm = x.norm(dim=-1)
        ctx.save_for_backward(x, norm)
        return norm

    @staticmethod
    def backward(ctx, grad_output):
        x, norm = ctx.saved_tensors
        grad_output /= torch.where(norm > 0, norm, 1.0)
        return grad_output.unsqueeze(-1) * x
