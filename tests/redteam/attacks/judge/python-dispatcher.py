# base: wrong
_guard = torch._C._EnablePythonDispatcher()
_guard.__enter__()
{WRONG}
