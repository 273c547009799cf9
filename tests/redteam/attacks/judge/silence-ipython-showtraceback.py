# base: wrong
ip = get_ipython()
ip.showtraceback = lambda *a, **k: None
{WRONG}
