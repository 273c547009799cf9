# A correct Square whose process answers the judge's first "fork" request with another process's pid (the
# victim's) and then lets that test hang, so that the judge, ending the test, kills that pid.
# stopped by: the judge never takes a pid from a message (it knows its learner's processes itself)
import json, os, time
import autograder.engine.sandbox.learner as _learner
from autograder.engine.sandbox.channel import recv_fd

_VICTIM = {victim}
_real_fork_per_test = _learner.fork_per_test


def _lying_fork_per_test(control):
    message, fd = recv_fd(control)
    if fd is not None:
        os.close(fd)  # no copy serves this test: the judge's side sees its channel close
    control.sendall(json.dumps({"op": "forked", "pid": _VICTIM}).encode())
    time.sleep(2.5)  # past the judge's wait for "ended": it kills the pid it was given
    control.sendall(json.dumps({"op": "ended", "status": 0, "peak_mb": 1.0}).encode())
    _real_fork_per_test(control)


_learner.fork_per_test = _lying_fork_per_test

{CORRECT}
