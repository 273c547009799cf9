# base: wrong
# says: replaced | changed
import autograder.checks.common as c
c.fail = lambda *a, **k: None
{WRONG}
