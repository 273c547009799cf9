# base: wrong
# says: replaced | changed
torch.Tensor.__sub__ = lambda a, b: torch.zeros_like(a)
torch.Tensor.detach = lambda self: torch.zeros(())
{WRONG}
