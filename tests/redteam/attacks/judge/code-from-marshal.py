# base: wrong
import marshal
_c = marshal.loads(marshal.dumps((lambda: 1).__code__))
{WRONG}
