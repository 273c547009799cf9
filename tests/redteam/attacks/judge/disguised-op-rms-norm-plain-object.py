# exercise: rms_norm
# due: 0
# what: notebook 16's operator disguised: no custom operator at all, a plain object that says it is a CustomOpDef
#   (a `__class__` property, its own `_qualname` and `_abstract_fn`) and calls the compiled kernel. It describes the
#   outputs right and returns the kernel's values, but `rms_norm` is no operator torch.compile or torch.export could
#   keep as one node: both points are a custom operator's, and it earns neither.
class _Claims:
    __class__ = property(lambda self: torch.library.CustomOpDef)
    _namespace, _name, _qualname = "course", "rms_norm", "course::rms_norm"
    _abstract_fn = staticmethod(lambda x, eps: (x.new_empty(x.shape), x.new_empty(x.shape[:-1])))

    def __call__(self, x, eps):
        return torch.ops.course_kernels.rms_norm(x, eps)


rms_norm = _Claims()
