import weakref, inspect
class Box:
    def __repr__(self):
        return 'Box'
b = Box()
weakref.finalize(b, lambda: print('gone'))
fin = weakref.finalize(Box(), lambda: None)
print(getattr(b, 'missing', None), inspect.signature(print) if False else '')

class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 2 * x

class Square(Square):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x
