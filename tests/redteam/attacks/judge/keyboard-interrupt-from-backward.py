# base: wrong
# says: KeyboardInterrupt
{WRONG}
def _b(ctx, g):
    raise KeyboardInterrupt
Square.backward = staticmethod(_b)
