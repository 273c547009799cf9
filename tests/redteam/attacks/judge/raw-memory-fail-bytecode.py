# base: wrong
# NumPy's __array_interface__ reads and writes any address of the process: here it rewrites the bytecode
# of checks.common.fail to `return None`. In the learner's process nothing can stop that; the verdict is
# computed in the judge, whose memory this process cannot reach.
import numpy as _np
import autograder.checks.common as _c
class _View:
    def __init__(self, address, size):
        self.__array_interface__ = {"data": (address, False), "shape": (size,), "typestr": "|u1", "version": 3}
_code = _c.fail.__code__
_mem = _np.asarray(_View(id(_code), 512))
_at = bytes(_mem).find(_code.co_code)
if _at > 0:
    _new = bytes([151, 0, 100, _code.co_consts.index(None), 83, 0])   # RESUME; LOAD_CONST None; RETURN_VALUE
    _mem[_at:_at + len(_new)] = _np.frombuffer(_new, dtype=_np.uint8)
{WRONG}
