# base: wrong
# says: _E | ValueError
{WRONG}
class _E(RuntimeError):
    def __str__(self):
        raise ValueError('no')
    __repr__ = __str__
def _b(ctx, g):
    raise _E()
Square.backward = staticmethod(_b)
