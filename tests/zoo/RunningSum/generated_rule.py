# mistake: sets generate_vmap_rule = True for a NumPy kernel instead of writing a vmap staticmethod
# feedback: generate_vmap_rule
# code: generated-vmap-rule
# rule: vmap
# fails: vmap
# score: 1/2
class RunningSum(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x):
        return torch.from_numpy(np.cumsum(x.numpy(force=True), axis=-1))

    @staticmethod
    def setup_context(ctx, inputs, output):
        pass

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.flip(-1).cumsum(-1).flip(-1)
