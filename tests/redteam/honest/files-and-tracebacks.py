import tempfile, os, traceback, io
with tempfile.TemporaryDirectory() as d:
    open(os.path.join(d, 'x.txt'), 'w').write('hi')
open('notes.txt', 'w').write('mine')
try:
    1 / 0
except ZeroDivisionError:
    text = traceback.format_exc()
def gen():
    yield from range(3)
print(list(gen()), len(text))

class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 2 * x
