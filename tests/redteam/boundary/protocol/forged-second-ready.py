# A correct answer that also sends a well-formed "ready" report of its own (every field as the protocol
# declares it) with a note of its choosing: whichever report the judge reads first, the other is a second one.
# stopped by: the judge believes no report once it sees two; the note is the grader's, never the answer's
import json, os, socket, stat, struct

{CORRECT}

_claim = {"op": "ready", "names": {}, "output": "", "seconds": 0.0,
          "failures": [{"cell": "{cell}", "error": {"type": "Note", "message": "ATTACKER-CHOSEN-NOTE"}}]}
_raw = json.dumps(_claim).encode()
_frame = struct.pack("!QQ", len(_raw), 0) + _raw  # the channel's frame: header size, body size, header
for _fd in range(3, 64):
    try:
        if not stat.S_ISSOCK(os.fstat(_fd).st_mode):
            continue
        _s = socket.socket(fileno=os.dup(_fd))
    except OSError:
        continue
    try:
        if _s.getsockopt(socket.SOL_SOCKET, socket.SO_TYPE) == socket.SOCK_STREAM:
            _s.sendall(_frame)
    except OSError:
        pass
    finally:
        _s.close()
