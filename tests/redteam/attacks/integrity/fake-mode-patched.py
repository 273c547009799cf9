# exercise: rms_norm
# base: fake_calls_kernel
# what: a fake kernel that runs the compiled kernel (it cannot run on fake tensors: the zoo's fake_calls_kernel),
#   and FakeTensorMode's dispatch patched on the class, below every watched module name: an operator the fake
#   tensors cannot run is run on real empty tensors of the same shape and strides and its outputs turned into fake
#   ones, so the probe that calls the operator under FakeTensorMode would see the right metadata. The integrity
#   record watches FakeTensorMode's and OpOverload's class dicts.
@torch.library.custom_op("course::rms_norm", mutates_args=())
def rms_norm(x: torch.Tensor, eps: float) -> tuple[torch.Tensor, torch.Tensor]:
    return torch.ops.course_kernels.rms_norm(x, eps)


@rms_norm.register_fake
def _(x, eps):
    return torch.ops.course_kernels.rms_norm(x, eps)


from torch._subclasses import fake_tensor as _fake_tensor

_dispatch = _fake_tensor.FakeTensorMode.dispatch


def _through_real(self, func, types, args=(), kwargs=None):
    try:
        return _dispatch(self, func, types, args, kwargs)
    except _fake_tensor.UnsupportedOperatorException:
        with _fake_tensor.unset_fake_temporarily():
            real = [torch.empty_strided(a.shape, a.stride(), dtype=a.dtype) if isinstance(a, torch.Tensor) else a
                    for a in args]
            out = func(*real, **(kwargs or {}))
        return tuple(self.from_tensor(t) for t in out) if isinstance(out, tuple) else self.from_tensor(out)


_fake_tensor.FakeTensorMode.dispatch = _through_real
