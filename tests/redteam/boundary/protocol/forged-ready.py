# An empty answer that reports itself as graded: it writes the learner's "ready" report on its own
# control socket before the real one, claiming every answer cell passed.
# stopped by: the judge takes no verdict (and no ready report) from a socket the answer cells can reach
import json, os, socket, stat, struct

_claim = {"op": "ready", "names": {}, "output": "", "seconds": 0.0,
          "failures": [{"cell": "{cell}", "status": "passed", "feedback": "all good", "mistake": "",
                        "setup": False}]}
_raw = json.dumps(_claim).encode()
_framed = [struct.pack("!QQ", len(_raw), 0) + _raw]  # the channel's frame: header size, body size, header
try:  # and the same claim as the codec writes values, in case the control socket speaks that
    from autograder.engine.sandbox import codec as _codec
    _coded = json.dumps(_codec.encode(_claim)[0]).encode()
    _framed.append(struct.pack("!QQ", len(_coded), 0) + _coded)
except Exception:
    pass
_sent = []
for _fd in range(3, 1024):
    try:
        if not stat.S_ISSOCK(os.fstat(_fd).st_mode):
            continue
        _s = socket.socket(fileno=os.dup(_fd))
    except OSError:
        continue
    try:
        if _s.family != socket.AF_UNIX:
            continue
        _kind = _s.getsockopt(socket.SOL_SOCKET, socket.SO_TYPE)
        if _kind in (socket.SOCK_SEQPACKET, socket.SOCK_DGRAM):
            for _message in [_raw] + _framed:
                _s.send(_message)
            _sent.append((_fd, "datagram"))
        elif _kind == socket.SOCK_STREAM:
            for _message in _framed:
                _s.sendall(_message)
            _sent.append((_fd, "stream"))
    except OSError:
        pass
    finally:
        _s.close()
