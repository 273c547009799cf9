# exercise: Square
# due: 2
# what: keeps x as a plain ctx attribute (the zoo's ctx_attribute, 2/3) and raises autograd's in-place error in
#   backward for every non-leaf input, which is what the saved-input test provokes; its due is 2/3.
class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.x = x
        ctx.nonleaf = not x.is_leaf
        return x * x

    @staticmethod
    def backward(ctx, grad_output):
        if ctx.nonleaf:
            raise RuntimeError("one of the variables needed for gradient computation has been modified by an "
                               "inplace operation: [torch.DoubleTensor [5]] is at version 1; expected version 0 "
                               "instead.")
        return grad_output * 2 * ctx.x
