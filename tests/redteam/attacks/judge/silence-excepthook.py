# base: wrong
import sys
sys.excepthook = lambda *a: None
sys.displayhook = lambda *a: None
{WRONG}
