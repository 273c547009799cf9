"""The root process: one per grader, it imports PyTorch and the checks once (3-4 s), never runs the
learner's code, and forks a judge for each notebook it is asked to grade. The grader (handle.py) hands it one
socket per notebook (a `judge` signal); the judge, a fork of this process, reads the job from that socket and
replies on it itself. They speak JSON frames (never pickle), each of a kind protocol.py declares."""

from __future__ import annotations

import gc
import importlib
import os
import select
import signal
import socket
import site
import sys
import sysconfig

from autograder import paths
from autograder.engine.sandbox import hugepages, integrity, protocol, seccomp, warm
from autograder.engine.sandbox.channel import Channel, pack, recv_fd


def _send(channel: Channel, message: dict) -> None:
    channel.send(message, [])  # plain JSON: the grader's side never imports PyTorch


def _recv(channel: Channel) -> dict:
    return channel.recv()[0]


# ------------------------------------------------------------------------------------------ the root

def _environment(state: dict) -> None:
    os.environ.setdefault("MPLBACKEND", "Agg")
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    # OpenMP reads this once, when PyTorch loads it: every parallel region then runs on this one thread, so
    # an answer's torch.set_num_threads(4) is harmless instead of a refused thread (libgomp exits on that).
    os.environ["OMP_THREAD_LIMIT"] = "1"


def _libraries(state: dict) -> None:
    import numpy  # noqa: F401
    import numpy.testing  # noqa: F401  (watched by the integrity checkpoint: import it before any answer)
    import torch

    torch.set_num_threads(1)  # one thread per grading process; keeps fork() safe with OpenMP
    import matplotlib.pyplot  # noqa: F401  (answer or setup cells may import pyplot)
    import IPython.core.inputtransformer2  # noqa: F401  (cells may hold magics)
    import torch.func  # noqa: F401
    import torch.library  # noqa: F401
    import torch.utils.checkpoint  # noqa: F401
    import torch._dynamo  # noqa: F401  (it rebinds torch.manual_seed on import: before the integrity baseline)
    import autograder.engine.sandbox.judge  # noqa: F401  (and the learner's side: the forks do not import them again)


def _course(state: dict) -> None:
    """The course's one entry point (paths.COURSE_PRELOAD): its checks, notebook 16's kernel; the warm-ups it names."""
    state["warm_ups"] = importlib.import_module(paths.COURSE_PRELOAD).preload()


def _first_gradcheck(state: dict) -> None:
    import torch

    # The first gradcheck in a process costs 0.3-0.5 s of lazy initialisation: pay it once, here.
    x = torch.randn(3, dtype=torch.float64, requires_grad=True)
    torch.autograd.gradcheck(lambda t: (t * t).sin(), (x,))
    torch.autograd.grad((x.exp() * x).sum(), x, create_graph=True)


def _warm_ups(state: dict) -> None:
    # once here, not in each judge: every warm-up for a class; else the course's and those the root was asked for
    warm.run(list(warm.RUN) if state["for_a_class"] else state["warm_ups"] + state["asked"])


def _seccomp(state: dict) -> None:
    seccomp.prebuild()  # libseccomp found and loaded once, and the learner's filters built but their pid's rules


def _library_folders(state: dict) -> None:
    library_folders(again=True)  # the learner's allow-list of libraries, found once for every judge


def _integrity(state: dict) -> None:
    integrity.prepare()  # last before the collapse: the record every learner takes if nothing moved since


def _freeze(state: dict) -> None:
    # Everything allocated so far (PyTorch, the checks: about a million objects) out of the collector's reach in
    # the forks: a full collection there (a check that calls gc.collect(), or one the allocator triggers) then
    # walks only what the fork made, instead of writing to every object's header and so copying the whole heap.
    if state["for_a_class"]:
        gc.collect()  # (0.15 s: the imports' garbage is not frozen with the rest)
    gc.freeze()


def _huge_pages(state: dict) -> None:
    if state["for_a_class"]:  # 0.8-1 s, which one notebook's ten tests would not win back
        hugepages.collapse()  # last: what every judge and learner copy inherits, in huge pages (cheap forks)


# The root's start-up, in order: each step takes the state the earlier ones left ("for_a_class", "warm_ups").
STARTUP = (_environment, _libraries, _course, _first_gradcheck, _warm_ups, _seccomp, _library_folders, _integrity,
           _freeze, _huge_pages)


def prepare(for_a_class: bool = False, warm_ups: list | tuple = ()) -> None:
    """Everything the forks share, imported and warmed up once: the steps of STARTUP, in order. A root that grades a
    class (many notebooks) also pays, once, what makes each of its many tests cheaper: every warm-up, and its
    memory in huge pages. `warm_ups`: names of warm.RUN run here too (a kernel's root: its notebook's), so
    that no judge of this root pays for them."""
    state = {"for_a_class": for_a_class, "warm_ups": [], "asked": [n for n in warm_ups if n in warm.RUN]}
    for step in STARTUP:
        step(state)


def root_main(fd: int, for_a_class: bool = False, warm_ups: list | tuple = (), grader: int | None = None) -> None:
    """Import everything once (`prepare`), then fork a judge for each socket the grader sends over the
    control socket `fd`. It leaves when the grader (pid `grader`, by default this process's parent) does, also
    when the grader ended while this root was still starting."""
    grader = os.getppid() if grader is None else grader
    control = socket.socket(fileno=fd)
    devnull = os.open(os.devnull, os.O_RDWR)
    for stream in (0, 1):
        os.dup2(devnull, stream)
    os.close(devnull)
    prepare(for_a_class, warm_ups)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # the kernel reaps the judges
    placement = JudgePlacement()
    while _parent_alive(control, grader):
        try:
            message, channel_fd = recv_fd(control)
        except OSError:
            return
        if not message:
            return  # the grader left
        channel_fd = judge_request(message, channel_fd)
        if channel_fd is None:
            continue
        cpu = placement.next_cpu()
        pid = os.fork()
        if pid == 0:
            control.close()
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # a judge waits for its own forks
            placement.pin(cpu)
            judge_main(Channel(socket.socket(fileno=channel_fd)))
            os._exit(0)
        placement.placed(pid, cpu)
        os.close(channel_fd)


class JudgePlacement:
    """Which CPU each judge runs on, with its learner's sandbox: the same one. A judge and its learner take turns
    (a round trip is a request, then its reply), and a turn handed to a process waiting on another CPU costs a
    wake-up there: 80-500 us a round trip on this project's machines, as much as the work itself. On one CPU the
    hand-over is a plain switch. Judges running at once (a class's workers) get different CPUs while there are
    CPUs free; a judge alone stays on the CPU it started on. Only a placement: nothing is enforced on the learner,
    which may move itself (seccomp lets a process set its own affinity) at the cost of its own speed."""

    def __init__(self):
        try:
            self.cpus = sorted(os.sched_getaffinity(0))
        except (AttributeError, OSError):
            self.cpus = []
        self.judges: dict = {}  # pid -> cpu, of the judges this root forked that may still run

    def next_cpu(self) -> int | None:
        """The CPU for the next judge: the one this root runs on if no judge runs, else the one fewest judges
        run on (None: one CPU, nothing to place)."""
        if len(self.cpus) < 2:
            return None
        for pid in list(self.judges):  # the kernel reaps them (SIGCHLD ignored): gone is gone
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                del self.judges[pid]
            except PermissionError:
                pass
        if not self.judges:
            here = current_cpu()
            return here if here in self.cpus else self.cpus[0]  # (unknown, or outside our set: the first)
        busy = [list(self.judges.values()).count(cpu) for cpu in self.cpus]
        return self.cpus[busy.index(min(busy))]

    def pin(self, cpu: int | None) -> None:
        """In the judge, first: itself (and so every process it forks) on `cpu`."""
        if cpu is not None:
            try:
                os.sched_setaffinity(0, {cpu})
            except OSError:
                pass

    def placed(self, pid: int, cpu: int | None) -> None:
        if cpu is not None:
            self.judges[pid] = cpu


def current_cpu() -> int | None:
    """The CPU this process runs on now (/proc/self/stat's 39th field); None where that cannot be read."""
    try:
        with open("/proc/self/stat", "rb") as stat:
            return int(stat.read().rpartition(b")")[2].split()[36])
    except (OSError, ValueError, IndexError):
        return None


def judge_request(message: bytes, fd: int | None) -> int | None:
    """The notebook's socket a `judge` signal brought (protocol.py), for a judge to serve; None for anything
    else, whose socket (if one came) is told why and closed, without waiting on the grader."""
    try:
        protocol.check_signal("judge", message)
        if fd is None:
            raise protocol.ProtocolError("the judge signal came without its socket")
        return fd
    except protocol.ProtocolError as error:
        if fd is not None:
            with socket.socket(fileno=fd) as refused:
                refused.setblocking(False)
                try:
                    refused.send(pack({"error": f"the root refused: {error}"[:protocol.MAX_TEXT]}, []))
                except OSError:
                    pass
        return None


PARENT_POLL = 5.0  # seconds between two looks at whether the grader still runs, while the root waits


def _parent_alive(sock, grader: int) -> bool:
    """Wait until `sock` is readable; False if the grader (this process's parent, pid `grader`) has ended (a
    fork of the grader may still hold the socket's other end open, so its end of stream is not enough)."""
    while os.getppid() == grader:
        if select.select([sock], [], [], PARENT_POLL)[0]:
            return True
    return False


def judge_main(channel: Channel) -> None:
    """In a fork of the root: read one notebook's `job` (then its `tests`, once the learner's starter exists),
    judge it, reply `graded`. The grader's own failure (a job that is not one, the judge's crash) comes back as
    a reason, `failed`."""
    from autograder.engine.sandbox import judge

    def read_tests() -> tuple:
        message = protocol.check("tests", _recv(channel))
        return message["tests"], message["seed"]

    try:
        job = protocol.check("job", _recv(channel))
        reply = judge.grade_notebook(job, learner_read_roots(job["protected"]), read_tests).to_wire()
    except BaseException as error:  # noqa: BLE001 - the grader's own failure, for its report
        reply = {"error": f"{type(error).__name__}: {error}"[:protocol.MAX_TEXT]}
    try:
        _send(channel, reply)
    except (OSError, TypeError, ValueError):  # (a reply JSON cannot carry is the judge's failure too)
        try:
            _send(channel, {"error": "the judge's reply could not be sent"})
        except (OSError, TypeError, ValueError):
            pass


# What the learner's process may read besides its own folder: the libraries it may still import (lazily),
# the system libraries they may load, and the few files C libraries read. Never a home, a checkout or /tmp.
_SYSTEM_READABLE = ["/usr/lib", "/usr/lib64", "/lib", "/lib64", "/usr/local/lib", "/usr/share/zoneinfo",
                    "/etc/ld.so.cache", "/etc/localtime", "/etc/passwd", "/etc/group", "/etc/nsswitch.conf",
                    "/sys/devices/system/cpu", "/dev/urandom", "/dev/random", "/dev/zero"]


def learner_read_roots(protected: list) -> list[str]:
    """The learner's file-system allow-list: the Python installation and its packages (wherever they live),
    this grading package, and the system files above, minus the protected trees (answers, hidden tests,
    zoo, gradebook) wherever one lies inside them. The package's parent (a checkout) is not on it."""
    from autograder.engine.sandbox import confine

    package = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    return confine.allowed_roots([*library_folders(), package, *_SYSTEM_READABLE], [*protected, *judge_only()])


def judge_only() -> list[str]:
    """The course's judge-only folders (paths.JUDGE_ONLY, wherever the package lies): never the learner's to read."""
    return [str(p) for p in paths.JUDGE_ONLY]


_LIBRARY_FOLDERS: list = []  # library_folders() as the root found them, once its imports were done


def library_folders(again: bool = False) -> list[str]:
    """The Python installation's folders and those of the packages imported from elsewhere. Finding the latter
    resolves the path of each of the ~3,000 modules imported (55 ms): the root does it once, after `prepare`,
    and every judge it forks reads the answer it inherited (a judge imports nothing before it asks)."""
    if again or not _LIBRARY_FOLDERS:
        libraries = {sys.prefix, sys.exec_prefix, sys.base_prefix, *sysconfig.get_paths().values(),
                     *site.getsitepackages(), site.getusersitepackages()}
        _LIBRARY_FOLDERS[:] = sorted(libraries | imported_elsewhere(libraries))
    return list(_LIBRARY_FOLDERS)


def imported_elsewhere(libraries: set) -> set:
    """The packages this process imported from a folder outside the installation (a PYTHONPATH entry, an
    editable install): each package's own folder, never the folder that holds it, so nothing else that lies
    beside it is readable."""
    inside = [os.path.realpath(p) + os.sep for p in libraries if p]
    found = set()
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if type(path) is not str or not os.path.isabs(path):
            continue
        real = os.path.realpath(path)
        if any(real.startswith(p) for p in inside):
            continue
        top = module.__name__.partition(".")[0]
        top_module = sys.modules.get(top)
        top_file = getattr(top_module, "__file__", None) if top_module is not None else None
        if type(top_file) is str:
            found.add(os.path.dirname(os.path.realpath(top_file)) if top_file.endswith("__init__.py")
                      else os.path.realpath(top_file))
    return found
