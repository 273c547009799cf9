# base: wrong
# says: _Stop
{WRONG}
class _Stop(BaseException):
    pass
def _b(ctx, g):
    raise _Stop()
Square.backward = staticmethod(_b)
