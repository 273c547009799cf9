# base: wrong
# says: replaced | changed
_apply = torch.autograd.Function.apply
torch.autograd.Function.apply = classmethod(lambda cls, *a: _apply.__func__(cls, *a))
{WRONG}
