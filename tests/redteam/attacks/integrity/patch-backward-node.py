# base: wrong
# says: replaced | changed
import torch.autograd.function as F
_orig = F.BackwardCFunction.apply
def apply(self, *args):
    out = _orig(self, *args)
    return out * 2 if self._forward_cls.__name__ == 'Square' else out
F.BackwardCFunction.apply = apply
{WRONG}
