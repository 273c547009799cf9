# base: wrong
from IPython.core import inputtransformer2 as _it
_it.TransformerManager.transform_cell = lambda self, cell: 'pass\n'
{WRONG}
