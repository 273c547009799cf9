# mistake: recomputes under torch.enable_grad on the saved x itself and calls y.backward(grad_output), then returns x.grad
# feedback: not reentrant
# code: wrong-derivative
# rule: derivative
# fails: gradcheck
# score: 4/5
class RecomputeSiLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * torch.sigmoid(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        with torch.enable_grad():
            y = x * torch.sigmoid(x)
            y.backward(grad_output)
        return x.grad
