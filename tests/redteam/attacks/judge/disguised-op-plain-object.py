# exercise: numpy_sin
# due: 2
# what: no custom operator at all: a plain object that says it is a CustomOpDef (a `__class__` property, its own
#   `_qualname`, and an `_opoverload` that is PyTorch's own sin, so opcheck checks aten.sin) and computes sin with
#   torch. Its values and gradient are right (2 points); opcheck, compile and export are about a custom operator
#   course::numpy_sin, which it is not.
class _Claims:
    __class__ = property(lambda self: torch.library.CustomOpDef)
    _namespace, _name, _qualname = "course", "numpy_sin", "course::numpy_sin"
    _opoverload = torch.ops.aten.sin.default
    _abstract_fn = staticmethod(torch.empty_like)

    def __call__(self, x):
        return torch.sin(x)


numpy_sin = _Claims()
