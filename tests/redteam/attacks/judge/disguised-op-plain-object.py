# exercise: numpy_sin
# due: 0
# what: no custom operator at all: a plain object that says it is a CustomOpDef (a `__class__` property, its own
#   `_qualname`, and an `_opoverload` that is PyTorch's own sin, so opcheck checks aten.sin) and computes sin with
#   torch. Every point is a custom operator course::numpy_sin's, which it is not: its values and gradient too (it
#   once kept those 2 points, where notebook 11's values and gradient tests called any object that was no
#   CustomOpDef as it was).
class _Claims:
    __class__ = property(lambda self: torch.library.CustomOpDef)
    _namespace, _name, _qualname = "course", "numpy_sin", "course::numpy_sin"
    _opoverload = torch.ops.aten.sin.default
    _abstract_fn = staticmethod(torch.empty_like)

    def __call__(self, x):
        return torch.sin(x)


numpy_sin = _Claims()
