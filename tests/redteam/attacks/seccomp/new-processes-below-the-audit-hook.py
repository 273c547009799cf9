# base: wrong
# says: not permitted
import _posixsubprocess, os
r, w = os.pipe()
_posixsubprocess.fork_exec([b'/bin/true'], [b'/bin/true'], True, (w,), None, None, -1, -1, -1, -1, -1, -1, r, w, True, False, -1, None, None, None, -1, None, False)
{WRONG}
