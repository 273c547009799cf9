# mistake: split style (forward(x) + setup_context); backward clamps the saved output in place with clamp_min_
# feedback: in place
# code: modifies-output
# rule: derivative
# fails: values gradcheck
# family: inplace-error
# score: 3/6
class SafeNorm(torch.autograd.Function):
    @staticmethod
    def forward(x):
        return x.norm(dim=-1)

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0], output)

    @staticmethod
    def backward(ctx, grad_output):
        x, norm = ctx.saved_tensors
        return grad_output.unsqueeze(-1) * x / norm.clamp_min_(1e-30).unsqueeze(-1)
