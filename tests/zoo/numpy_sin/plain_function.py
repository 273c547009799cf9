# mistake: writes an autograd.Function (the notebook-09 way) instead of a custom operator, so export fails
# feedback: custom_op
# code: not-a-custom-op
# rule: values gradient opcheck compile export
# fails: values gradcheck opcheck compile export
# score: 0/5
class numpy_sin(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.from_numpy(np.asarray(np.sin(x.numpy(force=True)))).to(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * torch.cos(x)
