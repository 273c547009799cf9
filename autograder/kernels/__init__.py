"""The course's compiled kernel (notebook 16): `rms_norm.cpp`, built with torch.utils.cpp_extension.load_inline
into `build/<key>/` inside this package (git-ignored), the key naming the source, torch and Python it was built
for, so a changed source or another torch builds afresh.

It is built outside every learner's process: by `make setup` (`python -m autograder.kernels`), by Binder's
postBuild, or at the latest by the grader's root process (`sandbox/root.py` `prepare`), which loads it before
it forks anything. A learner's process inherits the loaded library and never runs a compiler (its sandbox
forbids exec); a notebook run outside the grader loads the built library, or builds it once (about a minute).

Building needs a C++ compiler (g++) and ninja: `tools/install-compiler.sh` installs them on Debian/Ubuntu.
    python -m autograder.kernels     build (if needed) and load; print the library's path and the times
"""

from __future__ import annotations

import hashlib
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "rms_norm.cpp"
LIBRARY = "course_kernels"            # the namespace of the ops: torch.ops.course_kernels.<op>
OPS = ("rms_norm", "rms_norm_backward")


class KernelsUnavailable(RuntimeError):
    """The compiled kernel is neither loaded nor built, and cannot be built here."""


def key() -> str:
    import torch

    digest = hashlib.sha256(SOURCE.read_bytes()).hexdigest()[:12]
    return f"{digest}-torch{torch.__version__.replace('+', '_')}-py{sys.version_info.major}{sys.version_info.minor}"


def build_dir() -> Path:
    return HERE / "build" / key()


def library_path() -> Path:
    return build_dir() / f"{LIBRARY}.so"


def loaded() -> bool:
    """Whether this process has the ops (loaded here, or inherited from the process it was forked from)."""
    import torch

    try:
        return all(hasattr(getattr(torch.ops, LIBRARY), op) for op in OPS)
    except (AttributeError, RuntimeError):
        return False


def build(verbose: bool = False) -> float:
    """Compile rms_norm.cpp into build_dir() and load it; the seconds it took."""
    import shutil

    from torch.utils.cpp_extension import load_inline

    missing = [tool for tool in ("c++", "ninja") if shutil.which(tool) is None]
    if missing:
        raise KernelsUnavailable(
            f"the course's C++ kernel is not built, and {' and '.join(missing)} cannot be found to build it: "
            "install a C++ compiler and ninja (bash tools/install-compiler.sh on Debian or Ubuntu), then run "
            "python -m autograder.kernels")
    start = time.perf_counter()
    build_dir().mkdir(parents=True, exist_ok=True)
    try:
        load_inline(LIBRARY, cpp_sources=[SOURCE.read_text()], is_python_module=False,
                    build_directory=str(build_dir()), verbose=verbose)
    except Exception as error:  # noqa: BLE001 - a compiler's failure, in one sentence
        raise KernelsUnavailable(f"building the course's C++ kernel ({SOURCE.name}) failed: {error}") from error
    return time.perf_counter() - start


def load(allow_build: bool = True) -> str:
    """Make torch.ops.course_kernels available in this process: already there ("inherited"), loaded from the
    built library ("loaded"), or built first ("built")."""
    import torch

    if loaded():
        return "inherited"
    if library_path().exists():
        torch.ops.load_library(str(library_path()))
        if loaded():
            return "loaded"
    if not allow_build:
        raise KernelsUnavailable(f"the course's C++ kernel is not built ({library_path()} is missing): run "
                                 "python -m autograder.kernels outside the grader, then grade again")
    build()
    return "built"


def main() -> int:
    start = time.perf_counter()
    try:
        how = load()
    except KernelsUnavailable as error:
        print(f"autograder.kernels: {error}", file=sys.stderr)
        return 1
    print(f"{LIBRARY}: {how} in {time.perf_counter() - start:.1f} s from {library_path()}")
    return 0

