"""Red team: a student edits only the answer cell of notebook 01 and may write any Python there.

Each attack is a WRONG Square from the zoo (wrong derivative: 1/3 without extra code; ctx attribute: 2/3)
plus code that tries to raise the grade: replace the functions the checks use, silence tracebacks, plant
modules, rebind builtins, read the instructor's files, write the gradebook, forge the result channel, hunt
for the nonce or the hidden tests in memory, patch PyTorch, change things only while a check runs and put
them back, kill or flood the process... The requirement checked for every one of them: the grade is never
higher than the same wrong answer gets without the extra code, and nothing secret (solutions, hidden test
source, zoo, gradebook) appears anywhere in the report. Where the attack is refused, the feedback says so.

The last tests are the other side of the bargain: a correct Square with harmless extra code (prints,
helpers, numpy, namedtuple, dataclass, a magic, logging, custom_op + torch.compile, vmap, checkpoint,
finalizers, generators...) keeps full marks. An xfail(strict) test records the hole that is still open
(docs/threat-model.md): it starts failing, loudly, the day someone closes it.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass

import nbformat
import pytest

from autograder import grading, paths, samples
from autograder.sandbox import Job, Limits
from helpers import SQUARE

pytestmark = pytest.mark.xdist_group("redteam")

ASSIGNMENT = "01_square"
LIMITS = Limits(seconds_per_test=90)
ZOO = {e.name: e.source for e in samples.zoo() if e.exercise == "Square"}
WRONG = ZOO["wrong_derivative"]          # fails values and graph: 1/3
CTX = ZOO["ctx_attribute"]               # fails saved only: 2/3

# Text that exists only in protected files: it must never reach a report.
SECRETS = ["BEGIN SOLUTION", "BEGIN HIDDEN TESTS", "check.gradcheck(Square)", "check.saves_input(Square)",
           "check.graph_node(Square)", "# mistake:", "SQLite format"]


@pytest.fixture(scope="session")
def redteam_sandbox():
    with grading.new_sandbox() as box:
        yield box


def grade(sandbox, answer: str, seed: int = 0, limits: Limits = LIMITS, name: str = "01_square.ipynb"):
    _, nb = samples.student_notebook(ASSIGNMENT, {"Square": answer})
    report, _ = grading.grade_text(nbformat.writes(nb), name, sandbox, seed=seed, limits=limits)
    return report


@pytest.fixture(scope="session")
def baselines(redteam_sandbox):
    scores = {"wrong": grade(redteam_sandbox, WRONG).score, "ctx": grade(redteam_sandbox, CTX).score}
    assert scores == {"wrong": 1.0, "ctx": 2.0}, "the zoo answers no longer fail as this file assumes"
    return scores


def feedback_of(report) -> str:
    return " | ".join(c.feedback for c in report.cells)


def assert_no_secrets(report) -> None:
    text = json.dumps(report.to_json())
    leaked = [s for s in SECRETS if s in text]
    assert not leaked, f"protected text in the report: {leaked}: {text[:2000]}"


@dataclass(frozen=True)
class Attack:
    name: str
    code: str                      # "{WRONG}" marks where the wrong Square goes (else: attack first)
    base: str = "wrong"            # which wrong answer: "wrong" (1/3) or "ctx" (2/3)
    says: tuple = ()               # the feedback must contain one of these (refusal named)

    def source(self) -> str:
        answer = WRONG if self.base == "wrong" else CTX
        return self.code.replace("{WRONG}", answer) if "{WRONG}" in self.code else self.code + "\n" + answer


REPLACED = ("replaced", "changed")
DENIED = ("not allowed",)

FAKE_CHECK = """
import types as _types
class _Nothing:
    def __getattr__(self, name):
        return lambda *args, **kwargs: None
"""

SWAP_CHECK = """
class _FakeCheck:
    def __getattr__(self, name):
        return lambda *args, **kwargs: None
def _swap(frame):
    while frame is not None:
        if "check" in frame.f_globals:
            frame.f_globals["check"] = _FakeCheck()
        frame = frame.f_back
"""

READ_PROTECTED = """
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
"""

HUNT_NONCE = """
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
    for _line in (b'{"nonce": "x", "outcome": {"status": "passed"}}\\n', b"\\x00\\x00\\x00\\x10passed"):
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
"""

ATTACKS = [
    # --- the grader's tools replaced: found by the integrity snapshot ------------------------------------
    Attack("replace-gradcheck", "torch.autograd.gradcheck = lambda *a, **k: True\n"
           "torch.autograd.gradgradcheck = lambda *a, **k: True\n"
           "import torch.autograd.gradcheck as _g\n_g._allclose_with_type_promotion = lambda *a, **k: True",
           says=REPLACED),
    Attack("replace-allclose-assert-close", "torch.allclose = lambda *a, **k: True\n"
           "torch.isclose = lambda a, b, **k: torch.ones_like(a, dtype=torch.bool)\n"
           "torch.testing.assert_close = lambda *a, **k: None\ntorch.Tensor.allclose = lambda *a, **k: True",
           says=REPLACED),
    Attack("replace-numpy-testing", "import numpy as np\nnp.testing.assert_allclose = lambda *a, **k: None\n"
           "np.allclose = lambda *a, **k: True\nnp.testing.assert_array_almost_equal = lambda *a, **k: None",
           base="ctx", says=REPLACED),
    Attack("monkeypatch-fail", "import autograder.checks.common as c\nc.fail = lambda *a, **k: None",
           says=REPLACED),
    Attack("fail-code-swapped", "import autograder.checks.common as c\n"
           "c.fail.__code__ = (lambda code, message: None).__code__", says=DENIED),
    Attack("require-close-defaults", "import autograder.checks.common as c\n"
           "c.require_close.__defaults__ = ('', 1e9, 1e9)", says=DENIED),
    Attack("check-functions-replaced", "import autograder.checks.square as s\n"
           "s.values = s.gradcheck = s.graph_node = s.saves_input = lambda *a, **k: None", says=REPLACED),
    Attack("fake-square-module", FAKE_CHECK + "import sys, autograder.checks\n"
           "_fake = _types.ModuleType('autograder.checks.square')\n_fake.__getattr__ = _Nothing().__getattr__\n"
           "sys.modules['autograder.checks.square'] = _fake\nautograder.checks.square = _fake", says=REPLACED),
    Attack("fake-import-via-namespace-builtins", FAKE_CHECK + "import builtins\n_real = builtins.__import__\n"
           "def _imp(name, *a, **k):\n    return _Nothing() if name.startswith('autograder') else _real(name, *a, **k)\n"
           "__builtins__ = dict(builtins.__dict__, __import__=_imp)"),
    Attack("import-machinery-handle-fromlist", FAKE_CHECK + "import importlib._bootstrap as b\n"
           "_orig = b._handle_fromlist\n"
           "def _hf(module, fromlist, import_, *, recursive=False):\n"
           "    if getattr(module, '__name__', '') == 'autograder.checks':\n"
           "        return _types.SimpleNamespace(square=_Nothing())\n"
           "    return _orig(module, fromlist, import_, recursive=recursive)\nb._handle_fromlist = _hf",
           says=REPLACED),
    Attack("meta-path-finder", "import sys\nclass _Finder:\n    def find_spec(self, *a, **k):\n        return None\n"
           "sys.meta_path.insert(0, _Finder())", says=REPLACED),
    Attack("rebind-assertion-error", "import builtins\n"
           "builtins.AssertionError = type('AssertionError', (Exception,), {})", says=REPLACED),
    Attack("rebind-import-builtin", "import builtins\n_real = builtins.__import__\n"
           "builtins.__import__ = lambda name, *a, **k: _real(name, *a, **k)", says=REPLACED),
    Attack("silence-excepthook", "import sys\nsys.excepthook = lambda *a: None\nsys.displayhook = lambda *a: None",
           says=REPLACED),
    Attack("silence-ipython-showtraceback", "ip = get_ipython()\nip.showtraceback = lambda *a, **k: None",
           says=("not available while grading",)),
    Attack("silence-ipython-custom-exc", "get_ipython().set_custom_exc((BaseException,), lambda *a, **k: None)",
           says=("not available while grading",)),
    Attack("patch-tensor-methods", "torch.Tensor.__sub__ = lambda a, b: torch.zeros_like(a)\n"
           "torch.Tensor.detach = lambda self: torch.zeros(())", says=REPLACED),
    Attack("patch-function-apply", "_apply = torch.autograd.Function.apply\n"
           "torch.autograd.Function.apply = classmethod(lambda cls, *a: _apply.__func__(cls, *a))", says=REPLACED),
    Attack("patch-backward-node", "import torch.autograd.function as F\n_orig = F.BackwardCFunction.apply\n"
           "def apply(self, *args):\n    out = _orig(self, *args)\n"
           "    return out * 2 if self._forward_cls.__name__ == 'Square' else out\n"
           "F.BackwardCFunction.apply = apply", says=REPLACED),
    Attack("dispatch-mode-left-on", "from torch.utils._python_dispatch import TorchDispatchMode\n"
           "class _Lie(TorchDispatchMode):\n"
           "    def __torch_dispatch__(self, func, types, args=(), kwargs=None):\n"
           "        out = func(*args, **(kwargs or {}))\n"
           "        return torch.ones_like(out) if 'isclose' in str(func) else out\n_Lie().__enter__()",
           says=REPLACED),
    Attack("tensor-subclass-that-lies", """{WRONG}
class _T(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if func in (torch.allclose, torch.Tensor.allclose):
            return True
        return super().__torch_function__(func, types, args, kwargs or {})
_f, _b = Square.forward, Square.backward
Square.forward = staticmethod(lambda ctx, x: _f(ctx, x).as_subclass(_T))
Square.backward = staticmethod(lambda ctx, g: _b(ctx, g).as_subclass(_T))
""", says=("tensor subclass",)),
    Attack("override-aten-kernel", "_lib = torch.library.Library('aten', 'IMPL')\n"
           "_lib.impl('isclose', lambda a, b, *r, **k: torch.ones(torch.broadcast_shapes(a.shape, b.shape), "
           "dtype=torch.bool), 'CPU')", says=DENIED),
    Attack("override-aten-via-library-impl", "@torch.library.impl('aten::isclose', 'cpu')\n"
           "def _isclose(a, b, *r, **k):\n    return torch.ones_like(a, dtype=torch.bool)", says=DENIED),
    Attack("python-dispatcher", "_guard = torch._C._EnablePythonDispatcher()\n_guard.__enter__()", says=REPLACED),
    Attack("eval-frame-callback", "from torch._C._dynamo import eval_frame\n"
           "eval_frame.set_eval_frame(lambda *a: None)", says=DENIED),
    Attack("sys-path-shadow-package", "import os, sys\nos.makedirs('autograder/checks', exist_ok=True)\n"
           "open('autograder/__init__.py', 'w').write('')\n"
           "open('autograder/checks/__init__.py', 'w').write('')\n"
           "open('autograder/checks/square.py', 'w').write('def __getattr__(n):\\n    return lambda *a: None\\n')\n"
           "sys.path.insert(0, os.getcwd())\n"
           "for _m in [m for m in sys.modules if m.startswith('autograder')]:\n    del sys.modules[_m]",
           says=REPLACED),
    Attack("gc-callback", "import gc\ngc.callbacks.append(lambda phase, info: None)", says=REPLACED),
    # --- put back before the end: the watchdog sees the moment in between ---------------------------------
    Attack("transient-fail-patch-restored-by-finalizer", """import weakref
import autograder.checks.common as _c
{WRONG}
_orig = _c.fail
def _noop(code, message):
    return None
_fwd = Square.forward
def forward(ctx, x):
    _c.fail = _noop
    weakref.finalize(x, setattr, _c, "fail", _orig)
    return _fwd(ctx, x)
Square.forward = staticmethod(forward)
""", says=REPLACED + DENIED),
    Attack("transient-fail-patch-student-finalizer", """import weakref
import autograder.checks.common as _c
{WRONG}
_orig = _c.fail
def _noop(code, message):
    return None
def _restore():
    _c.fail = _orig
_fwd = Square.forward
def forward(ctx, x):
    _c.fail = _noop
    weakref.finalize(x, _restore)
    return _fwd(ctx, x)
Square.forward = staticmethod(forward)
""", says=("while the test was running",)),
    Attack("transient-patch-by-del", """import autograder.checks.common as _c
{WRONG}
_orig = _c.fail
def _noop(code, message):
    return None
class _Patch:
    def __del__(self):
        _c.fail = _noop
class _Restore:
    def __del__(self):
        _c.fail = _orig
_fwd = Square.forward
def forward(ctx, x):
    _p = _Patch()
    x._restore = _Restore()
    return _fwd(ctx, x)
Square.forward = staticmethod(forward)
""", says=("while the test was running",)),
    Attack("transient-builtins-from-finalizers", """import weakref, builtins
{WRONG}
_orig = builtins.bool
_fwd = Square.forward
def forward(ctx, x):
    _t = type("T", (), {})()
    weakref.finalize(_t, setattr, builtins, "bool", id)
    weakref.finalize(x, setattr, builtins, "bool", _orig)
    return _fwd(ctx, x)
Square.forward = staticmethod(forward)
""", says=DENIED),
    Attack("transient-forged-finalizer-registry", """import weakref
import autograder.checks.common as _c
{WRONG}
_orig = _c.fail
def _noop(code, message):
    return None
def _forge(obj, func, *args):
    f = object.__new__(weakref.finalize)
    info = weakref.finalize._Info()
    info.weakref = weakref.ref(obj, f)
    info.func, info.args, info.kwargs, info.atexit = func, args, None, True
    info.index = next(weakref.finalize._index_iter)
    weakref.finalize._registry[f] = info
_fwd = Square.forward
def forward(ctx, x):
    _forge(type("T", (), {})(), setattr, _c, "fail", _noop)
    _forge(x, setattr, _c, "fail", _orig)
    return _fwd(ctx, x)
Square.forward = staticmethod(forward)
""", says=("while the test was running",)),
    Attack("sandbox-state-edited", "import autograder.sandbox as sb, autograder.checks.common as c\n"
           "try:\n    sb._VOLATILE.add('fail')\nexcept AttributeError:\n    pass\n"
           "try:\n    sb._BASELINE['torch'] = {}\nexcept TypeError:\n    pass\n"
           "c.fail = lambda *a, **k: None", says=REPLACED),
    # --- the result channel and the nonce -----------------------------------------------------------------
    Attack("forge-channel-and-hunt-nonce", HUNT_NONCE),
    Attack("forge-zygote-pickle", "import os, pickle, struct\n"
           "_data = pickle.dumps({'status': 'passed'})\n"
           "for _fd in range(0, 256):\n    try:\n        os.write(_fd, struct.pack('!I', len(_data)) + _data)\n"
           "    except OSError:\n        pass"),
    Attack("os-exit-after-printing-passed", "print('passed')\nimport os\nos._exit(0)",
           says=("exited with code 0",)),
    Attack("os-exit-in-forward", "{WRONG}\nimport os\n_f = Square.forward\n"
           "Square.forward = staticmethod(lambda ctx, x: os._exit(0))", says=("exited with code 0",)),
    Attack("system-exit-from-forward", "{WRONG}\nSquare.forward = staticmethod(lambda ctx, x: (_ for _ in ()).throw("
           "SystemExit(0)))", says=("exit",)),
    Attack("keyboard-interrupt-from-backward", "{WRONG}\ndef _b(ctx, g):\n    raise KeyboardInterrupt\n"
           "Square.backward = staticmethod(_b)", says=("KeyboardInterrupt",)),
    Attack("base-exception-subclass", "{WRONG}\nclass _Stop(BaseException):\n    pass\n"
           "def _b(ctx, g):\n    raise _Stop()\nSquare.backward = staticmethod(_b)", says=("_Stop",)),
    Attack("exception-str-raises", "{WRONG}\nclass _E(RuntimeError):\n    def __str__(self):\n"
           "        raise ValueError('no')\n    __repr__ = __str__\n"
           "def _b(ctx, g):\n    raise _E()\nSquare.backward = staticmethod(_b)", says=("_E", "ValueError")),
    Attack("exception-lies-about-class", "{WRONG}\nfrom autograder.checks.common import Mistake\n"
           "class _E(Exception):\n    __class__ = property(lambda self: Mistake)\n"
           "    def __eq__(self, other):\n        return True\n    __hash__ = object.__hash__\n"
           "    message = code = 'passed'\n"
           "def _b(ctx, g):\n    raise _E()\nSquare.backward = staticmethod(_b)"),
    Attack("mistake-subclass-with-strange-message", "{WRONG}\nfrom autograder.checks.common import Mistake\n"
           "class _S(str):\n    def __str__(self):\n        raise ValueError\n    def splitlines(self):\n"
           "        raise ValueError\nclass _M(Mistake):\n    pass\n"
           "def _b(ctx, g):\n    raise _M('passed', _S('passed'))\nSquare.backward = staticmethod(_b)"),
    # --- frames: the way to the test's namespace, the grader's locals and the hidden test ----------------
    Attack("frames-via-logging-currentframe", SWAP_CHECK + "import logging\n{WRONG}\n_f = Square.forward\n"
           "def forward(ctx, x):\n    _swap(logging.currentframe())\n    return _f(ctx, x)\n"
           "Square.forward = staticmethod(forward)", says=("frames",)),
    Attack("frames-via-inspect-stack", SWAP_CHECK + "import inspect\n{WRONG}\n_f = Square.forward\n"
           "def forward(ctx, x):\n    for info in inspect.stack():\n        _swap(info.frame)\n"
           "    return _f(ctx, x)\nSquare.forward = staticmethod(forward)", says=("frames",)),
    Attack("frames-via-traceback-of-library-error", SWAP_CHECK + "{WRONG}\n_f = Square.forward\n"
           "def forward(ctx, x):\n    try:\n        torch.ones(2) + torch.ones(3)\n    except RuntimeError as e:\n"
           "        tb = e.__traceback__\n        while tb is not None:\n            _swap(tb.tb_frame)\n"
           "            tb = tb.tb_next\n    return _f(ctx, x)\nSquare.forward = staticmethod(forward)",
           says=("frames",)),
    Attack("frames-via-generator", SWAP_CHECK + "{WRONG}\ndef _gen():\n    yield 1\n_f = Square.forward\n"
           "def forward(ctx, x):\n    g = _gen()\n    next(g)\n    _swap(g.gi_frame)\n    return _f(ctx, x)\n"
           "Square.forward = staticmethod(forward)", says=("frames",)),
    Attack("frames-via-module-written-to-disk", SWAP_CHECK + "import sys, importlib\n"
           "open('evil_mod.py', 'w').write('import sys\\ndef grab():\\n    return sys._getframe(0)\\n')\n"
           "sys.path.insert(0, '.')\nevil = importlib.import_module('evil_mod')\n{WRONG}\n_f = Square.forward\n"
           "def forward(ctx, x):\n    _swap(evil.grab())\n    return _f(ctx, x)\nSquare.forward = staticmethod(forward)",
           says=("frames",)),
    Attack("frames-via-eval-string", SWAP_CHECK + "{WRONG}\n_grab = eval(\"lambda: __import__('sys')._getframe(0)\")\n"
           "_f = Square.forward\ndef forward(ctx, x):\n    _swap(_grab())\n    return _f(ctx, x)\n"
           "Square.forward = staticmethod(forward)", says=("frames",)),
    Attack("frames-via-finalizer-trampoline", SWAP_CHECK + "import weakref, sys, collections\n{WRONG}\n_stash = []\n"
           "_f, _b = Square.forward, Square.backward\n"
           "def forward(ctx, x):\n    y = _f(ctx, x)\n    t = type('T', (), {})()\n"
           "    weakref.finalize(t, collections.deque, map(_stash.append, map(sys._getframe, range(40))), 0)\n"
           "    return y\n"
           "def backward(ctx, g):\n    for fr in list(_stash):\n        _swap(fr)\n    return _b(ctx, g)\n"
           "Square.forward = staticmethod(forward)\nSquare.backward = staticmethod(backward)", says=DENIED),
    Attack("locals-via-traceback-capture", "import traceback\n{WRONG}\n_f = Square.forward\n"
           "def forward(ctx, x):\n"
           "    s = traceback.StackSummary.extract(traceback.walk_stack(None), capture_locals=True)\n"
           "    raise RuntimeError('LEAK ' + repr([fs.locals for fs in s]))\n"
           "Square.forward = staticmethod(forward)", says=("frames",)),
    Attack("code-disguised-as-library", "import marshal\n"
           "_c = compile('x = 1', %r, 'exec')" % str(paths.ROOT / "autograder" / "checks" / "common.py"),
           says=DENIED),
    Attack("rebind-the-graders-own-helpers", "import autograder.sandbox as _s\n"
           "import autograder.checks.common as _c\n_s.changed = lambda before, after: []\n"
           "_s._checkpoint = lambda trusted: []\n_c.require_close = lambda *a, **k: None", says=REPLACED),
    Attack("shadow-builtins-the-grader-uses", "import builtins\nimport autograder.checks.common as _c\n"
           "_real = builtins.tuple\nclass _Eq(_real):\n    def __eq__(self, o): return True\n"
           "    def __ne__(self, o): return False\n    __hash__ = _real.__hash__\n"
           "def _tuple(it=()):\n    t = _real(it)\n"
           "    return _Eq(t) if type(it).__name__ in ('dict_keys', 'dict_values', 'map') else t\n"
           "builtins.tuple = _tuple\n_c.require_close = lambda *a, **k: None", says=REPLACED),
    Attack("replace-the-cell-transformer", "from IPython.core import inputtransformer2 as _it\n"
           "_it.TransformerManager.transform_cell = lambda self, cell: 'pass\\n'"),
    Attack("code-from-marshal", "import marshal\n_c = marshal.loads(marshal.dumps((lambda: 1).__code__))",
           says=DENIED),
    # --- files, processes, memory ----------------------------------------------------------------------------
    Attack("read-protected-files", READ_PROTECTED.format(
        solutions=paths.SOLUTIONS, zoo=paths.ZOO, home=paths.grading_home(), WRONG="{WRONG}")),
    Attack("write-gradebook-and-course", "import os\nfor _p in ['{home}/gradebook.db', '{home}/x.txt', "
           "'{root}/solutions/x.txt', '{root}/autograder/checks/common.py']:\n"
           "    open(_p, 'a').write('pwned')".format(home=paths.grading_home(), root=paths.ROOT), says=DENIED),
    Attack("new-processes", "import subprocess\nsubprocess.run(['cp', '-r', %r, '.'])" % str(paths.SOLUTIONS),
           says=DENIED),
    Attack("new-processes-below-the-audit-hook", "import _posixsubprocess, os\nr, w = os.pipe()\n"
           "_posixsubprocess.fork_exec([b'/bin/true'], [b'/bin/true'], True, (w,), None, None, -1, -1, -1, -1,"
           " -1, -1, r, w, True, False, -1, None, None, None, -1, None, False)", says=("not permitted",)),
    Attack("threads", "import threading\nthreading.Thread(target=print).start()", says=("thread",)),
    Attack("signal-handler", "import signal\nsignal.signal(signal.SIGALRM, lambda *a: None)",
           says=("not permitted",)),
    Attack("ctypes", "import ctypes\nctypes.string_at(id(1), 8)", says=DENIED),
    Attack("network", "import socket\nsocket.create_connection(('example.com', 80), timeout=2)",
           says=DENIED + ("not permitted",)),
    Attack("other-process-memory", "import os\nopen('/proc/%d/mem' % os.getppid(), 'rb')", says=DENIED),
    Attack("interpreter-settings", "import sys, warnings\nsys.setrecursionlimit(60)\n"
           "warnings.simplefilter('error')\ntorch.set_default_dtype(torch.float32)"),
]


@pytest.mark.parametrize("attack", ATTACKS, ids=[a.name for a in ATTACKS])
def test_attack_gains_nothing(attack, redteam_sandbox, baselines):
    report = grade(redteam_sandbox, attack.source())
    assert report.score <= baselines[attack.base], (attack.name, [(c.grade_id, c.status, c.feedback)
                                                                 for c in report.cells])
    assert_no_secrets(report)
    if attack.says:
        text = feedback_of(report).lower()
        assert any(word.lower() in text for word in attack.says), feedback_of(report)


INSIDE_THE_HOOK = """
import shutil
import autograder.checks.common as _c
_ran = []
def _tamper(*args, **kwargs):
    try:
        _c.require_close.__code__ = (lambda *a, **k: None).__code__
        _ran.append("REPLACED")
    except PermissionError:
        _ran.append("refused")
    return "x.txt"
class _PathLike:
    __fspath__ = _tamper
class _Str(str):
    __fspath__ = split = rsplit = startswith = endswith = __add__ = __eq__ = __getitem__ = encode = _tamper
    __hash__ = str.__hash__
for _arg in (_PathLike(), _Str("x.txt")):
    for _call in (lambda: shutil.copyfile(_arg, "y.txt"), lambda: open(_arg), lambda: __import__("os").listdir(_arg)):
        try:
            _call()
        except Exception as _error:
            _ran.append(type(_error).__name__ + ": " + str(_error)[:80])
{WRONG}
def forward(ctx, x):
    raise RuntimeError("RAN " + repr(_ran))
Square.forward = staticmethod(forward)
"""


def test_no_student_code_runs_inside_the_audit_hook(redteam_sandbox):
    """The hook reads path arguments without calling their methods: a __fspath__ or a str subclass's
    method run from inside the hook would run unchecked (the hook ignores events while it is busy)."""
    report = grade(redteam_sandbox, INSIDE_THE_HOOK.replace("{WRONG}", WRONG))
    text = feedback_of(report)
    assert "RAN [" in text, text
    assert "REPLACED" not in text, text
    assert "your own class" in text, text
    assert report.score <= 1.0


def test_protected_files_are_not_read(redteam_sandbox):
    """Whatever route the answer takes to the instructor's files, the zoo or the gradebook, what it
    gets back (it reports it through an exception the feedback shows) holds none of their text."""
    report = grade(redteam_sandbox, next(a for a in ATTACKS if a.name == "read-protected-files").source())
    text = feedback_of(report)
    assert "READ [" in text  # the attack ran and reported what it got
    assert_no_secrets(report)
    assert "PermissionError" in text


def test_gradebook_and_sources_unchanged(redteam_sandbox):
    home = paths.grading_home()
    watched = [p for p in [home / "gradebook.db", paths.SOLUTIONS / "01_square" / "01_square.ipynb",
                           paths.ROOT / "autograder" / "checks" / "common.py"] if p.exists()]
    before = {p: p.read_bytes() for p in watched}
    grade(redteam_sandbox, next(a for a in ATTACKS if a.name == "write-gradebook-and-course").source())
    assert not (home / "x.txt").exists() and not (paths.SOLUTIONS / "x.txt").exists()
    assert {p: p.read_bytes() for p in watched} == before


def test_hidden_tests_never_reach_the_report(redteam_sandbox):
    """An answer that prints, raises and tries every way to the test source it knows: the report holds
    the visible feedback only."""
    attack = """
import sys, gc, linecache
_seen = []
for _name in list(linecache.cache):
    _seen.append(_name)
{WRONG}
_f = Square.forward
def forward(ctx, x):
    print("BEGIN HIDDEN TESTS is what I would print")
    try:
        _seen.append(repr(sys._getframe(3).f_code.co_consts))
    except BaseException as error:
        _seen.append(type(error).__name__)
    _seen.append(repr(linecache.getlines("<test:test_Square_values>")))
    raise RuntimeError("SEEN " + repr(_seen))
Square.forward = staticmethod(forward)
"""
    report = grade(redteam_sandbox, attack.replace("{WRONG}", WRONG))
    assert report.score == 0
    assert_no_secrets(report)
    assert "SEEN" in feedback_of(report)


def test_edited_test_cells_change_nothing(redteam_sandbox, baselines):
    """Deleting test cells, emptying them, or giving them 100 points: the tests and points come from
    the instructor's copy."""
    _, nb = samples.student_notebook(ASSIGNMENT, {"Square": WRONG})
    tests = [c for c in nb.cells if c.get("metadata", {}).get("nbgrader", {}).get("grade")]
    tests[0].source = "pass"
    tests[0].metadata["nbgrader"]["points"] = 100
    tests[1].metadata["nbgrader"]["points"] = 100
    nb.cells.remove(tests[2])
    nb.cells.append(nbformat.v4.new_code_cell("pass", metadata={"nbgrader": {
        "grade": True, "grade_id": "test_free_points", "points": 100, "solution": False, "locked": True}}))
    report, _ = grading.grade_text(nbformat.writes(nb), "01_square.ipynb", redteam_sandbox, limits=LIMITS)
    assert report.score == baselines["wrong"] and report.max_score == 3
    assert [c.grade_id for c in report.cells] == ["test_Square_values", "test_Square_graph", "test_Square_saved"]


def test_answer_cell_as_test_cell_gains_nothing(redteam_sandbox, baselines):
    """An answer cell relabelled as a graded cell with points of its own is not an answer any more."""
    _, nb = samples.student_notebook(ASSIGNMENT, {"Square": WRONG})
    for cell in nb.cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if meta.get("grade_id") == "answer_Square":
            meta.update(grade=True, points=50)
    report, _ = grading.grade_text(nbformat.writes(nb), "01_square.ipynb", redteam_sandbox, limits=LIMITS)
    assert report.score <= baselines["wrong"] and report.max_score == 3


# ------------------------------------------------------------------------------------ no false positives

HARMLESS = [
    ("prints-and-helpers", "print('hello')\ndef helper(t):\n    return t * 1\n" + SQUARE
     + "print(Square.apply(torch.ones(2)))"),
    ("numpy-namedtuple-dataclass", "import numpy as np\nfrom collections import namedtuple\n"
     "from dataclasses import dataclass, field\nimport typing, enum, functools\nPoint = namedtuple('Point', 'x y')\n"
     "@dataclass\nclass Config:\n    scale: float = 2.0\n    tags: list = field(default_factory=list)\n"
     "class Color(enum.Enum):\n    RED = 1\nclass P(typing.NamedTuple):\n    a: int\n"
     "@functools.lru_cache\ndef two():\n    return 2\n" + SQUARE
     + "print(Point(1, 2), Config(), np.linalg.norm(np.ones(3)), Color.RED, P(1), two())"),
    ("magics-and-plots", "%matplotlib inline\n%config InlineBackend.figure_format = 'retina'\n"
     "import matplotlib.pyplot as plt\nplt.plot([1, 2], [3, 4])\n" + SQUARE),
    ("logging-warnings-seed", "import logging, warnings\nlogging.getLogger('me').warning('a warning')\n"
     "warnings.warn('careful')\ntorch.manual_seed(0)\ntorch.set_default_dtype(torch.float64)\n"
     "torch.autograd.set_detect_anomaly(True)\n" + SQUARE),
    ("files-and-tracebacks", "import tempfile, os, traceback, io\nwith tempfile.TemporaryDirectory() as d:\n"
     "    open(os.path.join(d, 'x.txt'), 'w').write('hi')\nopen('notes.txt', 'w').write('mine')\n"
     "try:\n    1 / 0\nexcept ZeroDivisionError:\n    text = traceback.format_exc()\n"
     "def gen():\n    yield from range(3)\nprint(list(gen()), len(text))\n" + SQUARE),
    ("reflection-and-finalizers", "import weakref, inspect\nclass Box:\n    def __repr__(self):\n        return 'Box'\n"
     "b = Box()\nweakref.finalize(b, lambda: print('gone'))\nfin = weakref.finalize(Box(), lambda: None)\n"
     "print(getattr(b, 'missing', None), inspect.signature(print) if False else '')\n" + SQUARE
     + "\nclass Square(Square):\n    @staticmethod\n    def forward(ctx, x):\n"
       "        ctx.save_for_backward(x)\n        return x * x\n"),
    ("custom-op-compile-vmap-checkpoint", """import numpy as np
import torch.utils.checkpoint
from torch.func import vmap
@torch.library.custom_op("redteam::mysin", mutates_args=())
def mysin(x: torch.Tensor) -> torch.Tensor:
    return torch.from_numpy(np.sin(x.detach().numpy()))
@mysin.register_fake
def _(x):
    return torch.empty_like(x)
def _setup(ctx, inputs, output):
    ctx.save_for_backward(inputs[0])
def _backward(ctx, g):
    (x,) = ctx.saved_tensors
    return g * x.cos()
mysin.register_autograd(_backward, setup_context=_setup)
""" + SQUARE + """
x = torch.randn(4, dtype=torch.float64, requires_grad=True)
mysin(x).sum().backward()
assert torch.allclose(x.grad, x.detach().cos())
compiled = torch.compile(lambda t: Square.apply(mysin(t)).sin(), backend="aot_eager")
compiled(x).sum().backward()
print(vmap(torch.sin)(torch.randn(3, 2)).shape)
torch.utils.checkpoint.checkpoint(lambda t: Square.apply(t).exp(), x, use_reentrant=False).sum().backward()
"""),
]


@pytest.mark.parametrize("answer", [a for _, a in HARMLESS], ids=[n for n, _ in HARMLESS])
def test_correct_answer_with_harmless_code_keeps_full_marks(answer, redteam_sandbox):
    report = grade(redteam_sandbox, answer)
    assert report.score == report.max_score == 3, [(c.grade_id, c.feedback) for c in report.cells]


@pytest.mark.slow
def test_custom_op_and_compile_inside_a_test(redteam_sandbox):
    """The sandbox lets a test (not just an answer) run custom_op, register_fake, register_autograd,
    torch.compile(aot_eager, fullgraph), vmap and checkpoint on student code, even with the watchdog on."""
    test = """
import torch, numpy as np
from torch.func import vmap
import torch.utils.checkpoint
@torch.library.custom_op("redteamtest::cube", mutates_args=())
def cube(x: torch.Tensor) -> torch.Tensor:
    return torch.from_numpy(np.power(x.detach().numpy(), 3))
cube.register_fake(lambda x: torch.empty_like(x))
def _setup(ctx, inputs, output):
    ctx.save_for_backward(inputs[0])
cube.register_autograd(lambda ctx, g: g * 3 * ctx.saved_tensors[0] ** 2, setup_context=_setup)
x = torch.randn(5, dtype=torch.float64, requires_grad=True)
f = torch.compile(lambda t: Square.apply(cube(t)).sum(), backend="aot_eager", fullgraph=True)
(g,) = torch.autograd.grad(f(x), x)
assert torch.allclose(g, 6 * x.detach() ** 5)
assert torch.allclose(vmap(torch.sin)(x.detach()), x.detach().sin())
y = torch.utils.checkpoint.checkpoint(lambda t: Square.apply(t).sin(), x, use_reentrant=False)
y.sum().backward()
"""
    for mode in ("always",):
        outcome = redteam_sandbox.run(Job([("setup:setup_1", "import torch\n"), ("answer_Square", SQUARE)],
                                          "test_compile", test, limits=Limits(seconds_per_test=120, watchdog=mode)))
        assert outcome.status == "passed", (mode, outcome.feedback)


def test_isolation_is_in_force(redteam_sandbox):
    """What the kernel enforces here (Landlock and seccomp need Linux; absent elsewhere, the audit hook
    alone applies the file rules and docs/threat-model.md says what is then weaker)."""
    outcome = redteam_sandbox.run(Job([("setup:setup_1", "import torch\n"), ("answer_Square", SQUARE)], "t", "pass\n"))
    assert outcome.status == "passed"
    isolation = outcome.details.get("isolation", {})
    assert set(isolation) == {"landlock", "seccomp"}
    if redteam_sandbox.landlock:
        assert isolation["landlock"] == redteam_sandbox.landlock


def test_grading_still_fast_without_reflection(redteam_sandbox):
    """The watchdog costs time: plain answers (the honest majority) do not pay for it."""
    start = time.monotonic()
    report = grade(redteam_sandbox, SQUARE)
    assert report.score == 3
    assert time.monotonic() - start < 60


# ----------------------------------------------------------------------------------- still open, on purpose

@pytest.mark.xfail(strict=True, reason="open: NumPy's __array_interface__ reads and writes any address of the "
                   "grading process; in-process checks cannot stop code that rewrites memory "
                   "(docs/threat-model.md, 'What is not guaranteed')")
def test_raw_memory_write_is_stopped(redteam_sandbox, baselines):
    attack = """
import numpy as _np
import autograder.checks.common as _c
class _View:
    def __init__(self, address, size):
        self.__array_interface__ = {"data": (address, False), "shape": (size,), "typestr": "|u1", "version": 3}
_code = _c.fail.__code__
_mem = _np.asarray(_View(id(_code), 512))
_at = bytes(_mem).find(_code.co_code)
if _at > 0:
    _new = bytes([151, 0, 100, _code.co_consts.index(None), 83, 0])   # RESUME; LOAD_CONST None; RETURN_VALUE
    _mem[_at:_at + len(_new)] = _np.frombuffer(_new, dtype=_np.uint8)
"""
    report = grade(redteam_sandbox, attack + WRONG)
    assert report.score <= baselines["wrong"]


@pytest.mark.parametrize("where", ["forward", "backward"])
def test_answer_that_zeroes_its_input_gains_nothing(redteam_sandbox, baselines, where):
    """Expected values are computed from the inputs after the learner's code ran: an answer that zeroes
    its input would make every comparison 0 == 0. The checks compare against copies and say so."""
    if where == "forward":
        answer = WRONG + "\n_f = Square.forward\ndef forward(ctx, x):\n    x.data.zero_()\n    return _f(ctx, x)\n" \
                         "Square.forward = staticmethod(forward)\n"
    else:
        answer = WRONG + "\n_b = Square.backward\ndef backward(ctx, g):\n    r = _b(ctx, g)\n" \
                         "    ctx.saved_tensors[0].data.zero_()\n    return r * 0\nSquare.backward = staticmethod(backward)\n"
    report = grade(redteam_sandbox, answer)
    assert report.score <= baselines["wrong"]
    assert "changed one of its inputs in place" in feedback_of(report)
