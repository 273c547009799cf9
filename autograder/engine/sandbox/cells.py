"""Running notebook cells and turning what they raised into an Outcome with plain feedback."""

from __future__ import annotations

import sys
import types
from dataclasses import asdict, dataclass, field

ANSWER_FILE = "<answer"   # answer cells compile under "<answer:grade_id>": tracebacks name them


@dataclass
class Outcome:
    status: str                 # passed | failed | error | timeout
    feedback: str = ""          # plain words for the learner
    mistake: str = ""           # stable id of the mistake (failed checks) or of the fault
    output: str = ""            # what the answer cells printed (truncated)
    seconds: float = 0.0
    details: dict = field(default_factory=dict)

    def to_wire(self) -> dict:
        """As protocol.py's OUTCOME declares it."""
        return asdict(self)

    @classmethod
    def from_wire(cls, message: dict) -> "Outcome":
        """From an OUTCOME its reader has checked against protocol.py."""
        return cls(**message)


STATUSES = ("passed", "failed", "error", "timeout")


class NoIPython:
    """`get_ipython()` while grading: `%time`/`%timeit`/`%prun` run their statement, other magics do
    nothing, anything else says it is unavailable."""

    def run_line_magic(self, name=None, line="", *args, **kwargs):
        if name in RUN_THE_BODY and isinstance(line, str) and line.strip():
            caller = sys._getframe(1)
            code = compile(line, caller.f_code.co_filename, "exec")  # tracebacks still name the answer cell
            exec(code, caller.f_globals, caller.f_locals)
        return None

    def run_cell_magic(self, *args, **kwargs):
        return None

    system = run_cell_magic

    def __getattr__(self, name):
        raise AttributeError(f"get_ipython().{name} is not available while grading")


# Cell magics whose body is the learner's Python, run as written (timing and capturing are the notebook's
# business, not the grade's). Any other cell magic's body is not Python: the cell raises, naming it.
RUN_THE_BODY = frozenset({"time", "timeit", "capture", "prun"})


def cell_magic(source: str) -> tuple[str | None, str]:
    """(the cell magic's name, the cell with its magic line blanked) or (None, source)."""
    lines = source.split("\n")
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is None or not lines[first].lstrip().startswith("%%"):
        return None, source
    name = lines[first].lstrip()[2:].split(maxsplit=1)[0] if lines[first].strip() != "%%" else ""
    lines[first] = ""  # the body keeps its line numbers
    return name, "\n".join(lines)


def transform(source: str) -> str:
    """IPython syntax (magics, `!cmd`) to plain Python, so a stray `%matplotlib inline` is harmless; a cell
    magic that runs its body (`%%time`, `%%capture`, ...) runs it, any other names itself when the cell runs."""
    name, body = cell_magic(source)
    if name in RUN_THE_BODY:
        return transform(body)
    if name is not None:
        message = (f"the cell magic %%{name} does not run while grading (its body is not Python): write "
                   "this cell in plain Python")
        return "\n" * body.count("\n") + f"raise RuntimeError({message!r})\n"
    try:
        from IPython.core.inputtransformer2 import TransformerManager

        return TransformerManager().transform_cell(source)
    except Exception:  # noqa: BLE001 - plain Python then
        return source


def compile_cell(source: str, label: str, ipython: bool = True):
    """The cell's code object, or an Outcome if it does not compile."""
    filename = f"{ANSWER_FILE}:{label}>" if label.startswith("answer") else f"<{label}>"
    try:
        return compile(transform(source) if ipython else source, filename, "exec")
    except SyntaxError as error:
        return Outcome("error", f"syntax error in {label}, line {error.lineno}: {error.msg}", "syntax-error")


def run(code, namespace: dict, label: str, is_test: bool = False) -> Outcome | None:
    """Run a compiled cell in `namespace`; None if it ran, else what went wrong."""
    if isinstance(code, Outcome):
        return code
    try:
        exec(code, namespace)
    except BaseException as error:  # noqa: BLE001 - every failure is a result, not a crash
        return describe(error, label, is_test)
    return None


def describe(error: BaseException, label: str, is_test: bool) -> Outcome:
    from autograder.engine.shared import Mistake

    kind = type(error)
    if kind.__name__ == "Refused":
        return Outcome("error", f"{error}.", "too-large")
    if kind.__name__ == "BrokenProtocol":  # (proxy.py: its message names the broken protocol)
        return Outcome("error", str(error), "protocol")
    if kind.__name__ == "LearnerGone":
        return Outcome("error", "the process running your code ended", "learner-gone")
    if isinstance(error, Mistake):
        return Outcome("failed", str(error.message), str(error.code))
    if issubclass(kind, AssertionError):
        return Outcome("failed", str(error) or "a check failed", "assertion")
    if issubclass(kind, NotImplementedError):
        return Outcome("failed" if is_test else "error",
                       "not implemented yet (the code still raises NotImplementedError).", "not-implemented")
    if issubclass(kind, MemoryError):
        return Outcome("error", "ran out of memory: the grading limit was exceeded.", "memory-limit")
    if issubclass(kind, NameError):
        return Outcome("error", f"{error}: define it in its answer cell (and keep the name exactly).", "name-error")
    if issubclass(kind, SyntaxError):
        return Outcome("error", f"syntax error in {label}, line {error.lineno}: {error.msg}", "syntax-error")
    if issubclass(kind, PermissionError):
        return Outcome("error", f"not allowed while grading: {error}", "sandbox-denied")
    if issubclass(kind, SystemExit):
        return Outcome("error", "the code called exit(); nothing was graded after it.", "exit")
    text = _text(error)
    if "can't start new thread" in text:
        return Outcome("error", "starting a thread is not allowed while grading: the sandbox refuses new threads "
                                "(torch.set_num_threads is harmless: PyTorch runs on one thread here)."
                                + (getattr(error, "where", "") or answer_line(error)), "sandbox-denied")
    if "can't allocate memory" in text or "DefaultCPUAllocator" in text:
        return Outcome("error", "ran out of memory: the grading limit was exceeded.", "memory-limit")
    first = text.splitlines()[0][:500] if text else ""
    where = getattr(error, "where", "") or answer_line(error)
    name = getattr(error, "learner_type", "") or kind.__name__
    return Outcome("error", f"{name}: {first}{where}", "exception", details={"exception": name})


def _text(error) -> str:
    try:
        return str(error)
    except BaseException:  # noqa: BLE001 - a message that itself raises
        return ""


def answer_line(error: BaseException) -> str:
    """Where in the answer cells the exception came from (the last answer-cell line of its traceback)."""
    tb, last = error.__traceback__, None
    while isinstance(tb, types.TracebackType):
        filename = tb.tb_frame.f_code.co_filename
        if filename.startswith(ANSWER_FILE):
            last = (filename, tb.tb_lineno)
        tb = tb.tb_next
    if last is None:
        return ""
    return f" (in {last[0].strip('<>').split(':', 1)[-1]}, line {last[1]})"
