# base: wrong
import marshal
_c = compile('x = 1', '{root}/autograder/checks/common/__init__.py', 'exec')
{WRONG}
