# Looks for the hidden test cells and the course's base seed ({seed}: the test grades with that one) in the
# learner's own memory: every object the garbage collector tracks (a job dict, a list of test cells), then
# every byte of its writable anonymous memory (freed blocks too), and reports what it found through the feedback.
# stopped by: the judge: the learner's starter is forked before the judge reads any test cell, so no
# learner process is a copy of one that held them.
import gc
import re

_found = []
for _o in gc.get_objects():
    if isinstance(_o, dict) and isinstance(_o.get("tests"), list):
        _found.append("job dict: " + repr(_o["tests"])[:300])
    if isinstance(_o, dict) and _o.get("seed") == {seed_less_one} + 1:
        _found.append("seed dict")
    if isinstance(_o, (list, tuple)) and _o and isinstance(_o[0], (list, tuple)) and len(_o[0]) == 2 \
            and isinstance(_o[0][0], str) and _o[0][0].startswith("test_"):
        _found.append("test list: " + repr(_o)[:300])
_scanned = 0
# (the seed's digits split by a lookahead: the pattern's own text is not the seed)
_PATTERN = re.compile(rb"check\.gradcheck\(Square\)|check\.saves_input\(Square\)\n|{seed_head}(?={seed_tail})")
try:
    with open("/proc/self/maps") as _maps, open("/proc/self/mem", "rb", buffering=0) as _mem:
        for _line in _maps:
            _parts = _line.split()
            if _parts[1].startswith("rw") and (len(_parts) < 6 or _parts[5] in ("[heap]", "[stack]")):
                _start, _end = (int(x, 16) for x in _parts[0].split("-"))
                _at = _start
                while _at < _end:
                    _size = min(_end - _at, 1 << 24)
                    try:
                        _mem.seek(_at)
                        _chunk = _mem.read(_size)
                    except OSError:
                        break
                    _scanned += len(_chunk)
                    # A pattern whose own text differs from what it matches (this cell's source is in memory).
                    _hit = _PATTERN.search(_chunk)
                    if _hit:
                        _found.append("memory: " + repr(_chunk[max(0, _hit.start() - 80):_hit.end() + 40]))
                    _at += _size
except OSError as _error:
    _found.append(f"memory not scanned: {_error}")
raise RuntimeError(f"SCANNED {_scanned >> 20} MB FOUND " + " || ".join(_found)[:2000])
