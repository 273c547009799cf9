# base: wrong
# says: replaced | changed
import builtins
_real = builtins.__import__
builtins.__import__ = lambda name, *a, **k: _real(name, *a, **k)
{WRONG}
