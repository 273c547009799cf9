# base: wrong
# says: replaced | changed
import builtins
builtins.AssertionError = type('AssertionError', (Exception,), {})
{WRONG}
